package chunkrelay.translate.view;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;

import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes a {@link MergedProfile} in speedscope's file format: frames shared by all profiles (one per function and
 * line), one {@code sampled} profile per thread named after it, its samples in time order (speedscope's time-order
 * view), root first, each weighing the sampling period of its chunk in nanoseconds.
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
            for (Frames.Frame frame : frames.list) {
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
            long count = byThread.get(t).stream().mapToLong(g -> g.timestamps().length).sum();
            if (count > most) {
                most = count;
                busiest = t;
            }
        }
        return busiest;
    }

    private static void writeThread(JsonGenerator json, MergedProfile.Thread thread,
                                    List<MergedProfile.SampleGroup> groups, List<int[]> stackFrames)
            throws IOException {
        int count = 0;
        for (MergedProfile.SampleGroup group : groups) {
            count += group.timestamps().length;
        }
        long[] times = new long[count];
        int[] groupOf = new int[count];
        int i = 0;
        for (int g = 0; g < groups.size(); g++) {
            for (long timestamp : groups.get(g).timestamps()) {
                times[i] = timestamp;
                groupOf[i++] = g;
            }
        }
        Integer[] order = new Integer[count];
        for (int s = 0; s < count; s++) {
            order[s] = s;
        }
        Arrays.sort(order, Comparator.comparingLong(s -> times[s]));
        long start = count == 0 ? 0 : times[order[0]];
        long end = count == 0 ? 0 : times[order[count - 1]] + groups.get(groupOf[order[count - 1]]).periodNanos();
        json.writeStartObject();
        json.writeStringField("type", "sampled");
        json.writeStringField("name", thread.label());
        json.writeStringField("unit", "nanoseconds");
        json.writeNumberField("startValue", start);
        json.writeNumberField("endValue", end);
        json.writeArrayFieldStart("samples");
        for (int s = 0; s < count; s++) {
            int[] frames = stackFrames.get(groups.get(groupOf[order[s]]).stack());
            json.writeArray(frames, 0, frames.length);
        }
        json.writeEndArray();
        json.writeArrayFieldStart("weights");
        for (int s = 0; s < count; s++) {
            json.writeNumber(groups.get(groupOf[order[s]]).periodNanos());
        }
        json.writeEndArray();
        json.writeEndObject();
    }

    /** Speedscope frames: one per (function, line), in order of first use. */
    private static final class Frames {
        record Frame(String name, String file, long line) {
        }

        private final MergedProfile profile;
        private final List<Frame> list = new ArrayList<>();
        private final Map<Frame, Integer> index = new HashMap<>();

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
            return index.computeIfAbsent(frame, f -> {
                list.add(f);
                return list.size() - 1;
            });
        }
    }
}
