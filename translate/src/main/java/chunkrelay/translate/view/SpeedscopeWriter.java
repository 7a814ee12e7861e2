package chunkrelay.translate.view;

import chunkrelay.chunk.primitive.IndexedSet;
import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;

import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Writes a {@link MergedProfile} in speedscope's file format: frames shared by all profiles (one per function and
 * line), one {@code sampled} profile per thread named after it, one entry per stack (root first, in the profile's canonical
 * order) weighing its samples' time in nanoseconds: speedscope's left-heavy and sandwich views; a range's answer has
 * no sample times for its time-order view.
 */
public final class SpeedscopeWriter {
    public static final String SCHEMA = "https://www.speedscope.app/file-format-schema.json";
    private static final JsonFactory JSON = new JsonFactory();

    private SpeedscopeWriter() {
    }

    public static void write(MergedProfile profile, String name, OutputStream out) throws IOException {
        Frames frames = new Frames(profile);
        List<List<MergedProfile.SampleGroup>> byThread = new ArrayList<>();
        for (int t = 0; t < profile.threads().size(); t++) {
            byThread.add(new ArrayList<>());
        }
        for (MergedProfile.SampleGroup group : profile.samples()) {
            byThread.get(group.thread()).add(group);
        }
        try (JsonGenerator json = JSON.createGenerator(out, JsonEncoding.UTF8)) {
            json.writeStartObject();
            json.writeStringField("$schema", SCHEMA);
            json.writeStringField("name", name);
            json.writeStringField("exporter", "chunk-relay");
            json.writeNumberField("activeProfileIndex", busiestThread(byThread));
            List<int[]> stackFrames = new ArrayList<>();
            for (int[] stack : profile.stacks()) {
                stackFrames.add(frames.rootFirst(stack));
            }
            json.writeObjectFieldStart("shared");
            json.writeArrayFieldStart("frames");
            for (Frames.Frame frame : frames.index.values()) {
                json.writeStartObject();
                json.writeStringField("name", frame.name());
                if (frame.file() != null) {
                    json.writeStringField("file", frame.file());
                }
                if (frame.line() > 0) {
                    json.writeNumberField("line", frame.line());
                }
                json.writeEndObject();
            }
            json.writeEndArray();
            json.writeEndObject();
            json.writeArrayFieldStart("profiles");
            for (int t = 0; t < byThread.size(); t++) {
                writeThread(json, profile.threads().get(t), byThread.get(t), stackFrames);
            }
            json.writeEndArray();
            json.writeEndObject();
        }
    }

    private static int busiestThread(List<List<MergedProfile.SampleGroup>> byThread) {
        int busiest = 0;
        long most = -1;
        for (int t = 0; t < byThread.size(); t++) {
            long count = byThread.get(t).stream().mapToLong(MergedProfile.SampleGroup::count).sum();
            if (count > most) {
                most = count;
                busiest = t;
            }
        }
        return busiest;
    }

    /**
     * One thread as a sampled profile: one entry per stack (a range's answer keeps counts, not sample times), its
     * weight the samples' time in nanoseconds, and beside the weights {@code counts}, the number of samples of each
     * entry, and {@code sampleTypes}, what the samples measured (the OTLP period types, {@code wall} or {@code cpu});
     * neither is part of speedscope's format, which ignores them; the page reads them.
     */
    private static void writeThread(JsonGenerator json, MergedProfile.Thread thread,
                                    List<MergedProfile.SampleGroup> groups, List<int[]> stackFrames)
            throws IOException {
        Map<Integer, long[]> byStack = new TreeMap<>();
        SortedSet<String> types = new TreeSet<>();
        long start = Long.MAX_VALUE;
        long end = Long.MIN_VALUE;
        for (MergedProfile.SampleGroup group : groups) {
            types.add(group.periodType());
            long[] entry = byStack.computeIfAbsent(group.stack(), s -> new long[2]);
            entry[0] += group.count() * group.periodNanos();
            entry[1] += group.count();
            start = Math.min(start, group.firstNanos());
            end = Math.max(end, group.lastNanos() + group.periodNanos());
        }
        json.writeStartObject();
        json.writeStringField("type", "sampled");
        json.writeStringField("name", thread.label());
        json.writeStringField("unit", "nanoseconds");
        json.writeNumberField("startValue", byStack.isEmpty() ? 0 : start);
        json.writeNumberField("endValue", byStack.isEmpty() ? 0 : end);
        json.writeArrayFieldStart("samples");
        for (int stack : byStack.keySet()) {
            int[] frames = stackFrames.get(stack);
            json.writeArray(frames, 0, frames.length);
        }
        json.writeEndArray();
        json.writeArrayFieldStart("weights");
        for (long[] entry : byStack.values()) {
            json.writeNumber(entry[0]);
        }
        json.writeEndArray();
        json.writeArrayFieldStart("counts");
        for (long[] entry : byStack.values()) {
            json.writeNumber(entry[1]);
        }
        json.writeEndArray();
        json.writeArrayFieldStart("sampleTypes");
        for (String type : types) {
            json.writeString(type);
        }
        json.writeEndArray();
        json.writeEndObject();
    }

    /** Speedscope frames: one per (function, line), in order of first use. */
    private static final class Frames {
        record Frame(String name, String file, long line) {
        }

        private final MergedProfile profile;
        private final IndexedSet<Frame> index = IndexedSet.byValue();

        Frames(MergedProfile profile) {
            this.profile = profile;
        }

        /** A stack (leaf-first locations) as frame indices, root first, inlined functions outermost first. */
        int[] rootFirst(int[] stack) {
            List<Integer> frames = new ArrayList<>();
            for (int i = stack.length - 1; i >= 0; i--) {
                MergedProfile.Location location = profile.locations().get(stack[i]);
                List<MergedProfile.Line> lines = location.lines();
                if (lines.isEmpty()) {
                    frames.add(frame(new Frame("0x" + Long.toHexString(location.address()), null, 0)));
                }
                for (int l = lines.size() - 1; l >= 0; l--) {
                    MergedProfile.Function function = profile.functions().get(lines.get(l).function());
                    String name = function.name() == null || function.name().isEmpty() ? "<unknown>" : function.name();
                    frames.add(frame(new Frame(name, function.file(), lines.get(l).line())));
                }
            }
            return frames.stream().mapToInt(Integer::intValue).toArray();
        }

        private int frame(Frame frame) {
            return index.indexOf(frame);
        }
    }
}
