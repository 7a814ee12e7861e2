package chunkrelay.translate.view;

import chunkrelay.translate.ProfileTypes;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A {@link Rollup} as bytes: varints and strings in table order (functions, locations, stacks, threads, links,
 * sample types, sample groups, tick counts, chunk counts, included chunks, minute versions), behind a format version.
 * The same rollup always gives the same bytes, so two replicas that build one write the same object.
 *
 * <p>A rollup split per tick (a minute's per-second detail) is format 4: as format 2, but each sample group is written
 * with its ticks instead of its count and first and last sample (how many ticks, then per tick the gap from the one
 * before, its count, and its first sample's offset from the tick's start and its last's from its first), and the
 * chunk counts per tick follow at the end; the group's whole count and bounds are read back from its ticks. Format 3,
 * which split them as one sample group per tick, is still read. Rollups that are not split stay format 2, byte for
 * byte.
 *
 * <p>Format 1, written before samples carried their type, is still read: its samples are of the type the OTLP it was
 * merged from said, {@code cpu}, and its frame of empty stacks, {@code (no stack)}, takes that type's name.
 */
public final class RollupCodec {
    private static final int VERSION = 2;
    private static final int VERSION_PER_TICK = 4;
    /** A rollup split per tick as one sample group per tick. */
    private static final int VERSION_GROUP_PER_TICK = 3;
    private static final int VERSION_WITHOUT_SAMPLE_TYPES = 1;
    /** Format 1's frame of empty stacks. */
    private static final String FORMAT_1_EMPTY_STACK = "(no stack)";

    private RollupCodec() {
    }

    public static byte[] write(Rollup rollup) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        CodedOutputStream out = CodedOutputStream.newInstance(bytes);
        try {
            MergedProfile p = rollup.profile();
            out.writeUInt32NoTag(p.perStep ? VERSION_PER_TICK : VERSION);
            out.writeInt64NoTag(rollup.startNanos());
            out.writeInt64NoTag(rollup.endNanos());
            out.writeUInt32NoTag(p.grid.steps());
            out.writeInt64NoTag(p.periodNanos);
            out.writeInt64NoTag(p.startNanos);
            out.writeInt64NoTag(p.endNanos);
            out.writeUInt32NoTag(p.functions.size());
            for (MergedProfile.Function function : p.functions) {
                text(out, function.name());
                text(out, function.systemName());
                text(out, function.file());
            }
            out.writeUInt32NoTag(p.locations.size());
            for (MergedProfile.Location location : p.locations) {
                out.writeUInt64NoTag(location.address());
                out.writeUInt32NoTag(location.lines().size());
                for (MergedProfile.Line line : location.lines()) {
                    out.writeUInt32NoTag(line.function());
                    out.writeInt64NoTag(line.line());
                }
            }
            out.writeUInt32NoTag(p.stacks.size());
            for (int[] stack : p.stacks) {
                out.writeUInt32NoTag(stack.length);
                for (int location : stack) {
                    out.writeUInt32NoTag(location);
                }
            }
            out.writeUInt32NoTag(p.threads.size());
            for (MergedProfile.Thread thread : p.threads) {
                text(out, thread.profilerId());
                text(out, thread.threadId());
                text(out, thread.name());
                out.writeBoolNoTag(thread.chunk() != null);
                if (thread.chunk() != null) {
                    chunk(out, thread.chunk());
                }
            }
            out.writeUInt32NoTag(p.links.size());
            for (MergedProfile.Link link : p.links) {
                out.writeStringNoTag(link.traceId());
                out.writeStringNoTag(link.spanId());
            }
            List<String> types = new ArrayList<>(p.sampleTypes());
            out.writeUInt32NoTag(types.size());
            for (String type : types) {
                out.writeStringNoTag(type);
            }
            out.writeUInt32NoTag(p.samples.size());
            for (int g = 0; g < p.samples.size(); g++) {
                MergedProfile.SampleGroup group = p.samples.get(g);
                out.writeUInt32NoTag(group.stack());
                out.writeUInt32NoTag(group.thread());
                out.writeUInt32NoTag(group.link() + 1);
                out.writeUInt32NoTag(types.indexOf(group.periodType()));
                out.writeInt64NoTag(group.periodNanos());
                if (p.perStep) {
                    groupTicks(out, p.steps, g);
                } else {
                    out.writeInt64NoTag(group.count());
                    out.writeInt64NoTag(group.firstNanos());
                    out.writeInt64NoTag(group.lastNanos() - group.firstNanos());
                }
            }
            for (long[] ticks : p.stepCounts) {
                ticks(out, ticks);
            }
            out.writeUInt32NoTag(p.chunkCounts.size());
            for (Map.Entry<ChunkAttributes, Long> chunks : p.chunkCounts.entrySet()) {
                chunk(out, chunks.getKey());
                out.writeInt64NoTag(chunks.getValue());
            }
            out.writeUInt32NoTag(rollup.included().size());
            for (String entry : rollup.included()) {
                out.writeStringNoTag(entry);
            }
            out.writeUInt32NoTag(rollup.minuteVersions().size());
            for (Map.Entry<Long, Long> minute : rollup.minuteVersions().entrySet()) {
                out.writeInt64NoTag(minute.getKey());
                out.writeInt64NoTag(minute.getValue());
            }
            if (p.perStep) {
                out.writeUInt32NoTag(p.chunkStepCounts.size());
                for (Map.Entry<ChunkAttributes, long[]> chunks : p.chunkStepCounts.entrySet()) {
                    chunk(out, chunks.getKey());
                    ticks(out, chunks.getValue());
                }
            }
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /**
     * @throws IllegalArgumentException when the bytes are not a rollup of this format
     */
    public static Rollup read(byte[] bytes) {
        CodedInputStream in = CodedInputStream.newInstance(bytes);
        try {
            int version = in.readUInt32();
            if (version != VERSION && version != VERSION_PER_TICK && version != VERSION_GROUP_PER_TICK
                    && version != VERSION_WITHOUT_SAMPLE_TYPES) {
                throw new IllegalArgumentException("rollup format " + version + " is not " + VERSION);
            }
            boolean format1 = version == VERSION_WITHOUT_SAMPLE_TYPES;
            long start = in.readInt64();
            long end = in.readInt64();
            int ticks = in.readUInt32();
            MergedProfile p = new MergedProfile();
            p.grid = new TimeGrid(start, (end - start) / ticks, ticks);
            p.periodNanos = in.readInt64();
            p.startNanos = in.readInt64();
            p.endNanos = in.readInt64();
            if (format1) {
                in.readInt32(); // the location of its frame of empty stacks, which is known by its name
            }
            for (int n = in.readUInt32(); n > 0; n--) {
                MergedProfile.Function function = new MergedProfile.Function(text(in), text(in), text(in));
                if (format1 && function.equals(new MergedProfile.Function(FORMAT_1_EMPTY_STACK, null, null))) {
                    function = new MergedProfile.Function(ProfileTypes.emptyStackFrame(ProfileTypes.CPU), null, null);
                }
                p.functions.add(function);
            }
            for (int n = in.readUInt32(); n > 0; n--) {
                long address = in.readUInt64();
                int count = in.readUInt32();
                MergedProfile.Line[] lines = new MergedProfile.Line[count];
                for (int i = 0; i < count; i++) {
                    lines[i] = new MergedProfile.Line(in.readUInt32(), in.readInt64());
                }
                p.locations.add(new MergedProfile.Location(address, java.util.List.of(lines)));
            }
            for (int n = in.readUInt32(); n > 0; n--) {
                int[] stack = new int[in.readUInt32()];
                for (int i = 0; i < stack.length; i++) {
                    stack[i] = in.readUInt32();
                }
                p.stacks.add(stack);
            }
            for (int n = in.readUInt32(); n > 0; n--) {
                String profiler = text(in);
                String threadId = text(in);
                String name = text(in);
                p.threads.add(new MergedProfile.Thread(profiler, threadId, name, in.readBool() ? chunk(in) : null));
            }
            for (int n = in.readUInt32(); n > 0; n--) {
                p.links.add(new MergedProfile.Link(in.readString(), in.readString()));
            }
            List<String> types = new ArrayList<>();
            if (format1) {
                types.add(ProfileTypes.CPU);
            } else {
                for (int n = in.readUInt32(); n > 0; n--) {
                    types.add(in.readString());
                }
            }
            if (version == VERSION_PER_TICK) {
                readTickGroups(in, p, types);
            } else {
                readGroups(in, p, types, format1, version == VERSION_GROUP_PER_TICK);
            }
            for (int t = 0; t < p.threads.size(); t++) {
                p.stepCounts.add(ticks(in, ticks));
            }
            for (int n = in.readUInt32(); n > 0; n--) {
                p.chunkCounts.put(chunk(in), in.readInt64());
            }
            SortedSet<String> included = new TreeSet<>();
            for (int n = in.readUInt32(); n > 0; n--) {
                included.add(in.readString());
            }
            SortedMap<Long, Long> minuteVersions = new TreeMap<>();
            for (int n = in.readUInt32(); n > 0; n--) {
                minuteVersions.put(in.readInt64(), in.readInt64());
            }
            if (version == VERSION_PER_TICK || version == VERSION_GROUP_PER_TICK) {
                p.perStep = true;
                for (int n = in.readUInt32(); n > 0; n--) {
                    p.chunkStepCounts.put(chunk(in), ticks(in, ticks));
                }
            }
            return new Rollup(start, end, p, included, minuteVersions);
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException("not a rollup: " + e.getMessage(), e);
        }
    }

    /** A group's ticks: how many, then per tick its gap from the one before, count, first and last sample. */
    private static void groupTicks(CodedOutputStream out, SampleSteps steps, int group) throws IOException {
        out.writeUInt32NoTag(steps.to(group) - steps.from(group));
        int previous = -1;
        for (int entry = steps.from(group); entry < steps.to(group); entry++) {
            out.writeUInt32NoTag(steps.step(entry) - previous - 1);
            out.writeUInt64NoTag(steps.count(entry));
            out.writeUInt32NoTag(steps.firstOffset(entry));
            out.writeUInt32NoTag(steps.lastOffset(entry) - steps.firstOffset(entry));
            previous = steps.step(entry);
        }
    }

    /** Format 4's sample groups with their ticks; each group's count and bounds are its ticks'. */
    private static void readTickGroups(CodedInputStream in, MergedProfile p, List<String> types) throws IOException {
        SampleGroupTable groups = new SampleGroupTable(p.grid);
        for (int n = in.readUInt32(); n > 0; n--) {
            int group = groups.group(in.readUInt32(), in.readUInt32(), in.readUInt32() - 1,
                    types.get(in.readUInt32()), in.readInt64());
            int tick = -1;
            for (int entries = in.readUInt32(); entries > 0; entries--) {
                tick += in.readUInt32() + 1;
                long count = in.readUInt64();
                long first = SampleSteps.stepStart(p.grid, tick) + in.readUInt32();
                long last = first + in.readUInt32();
                // a tick off the grid, or samples past its end, are refused here
                groups.add(group, count, first, last);
                p.lastSampleNanos = Math.max(p.lastSampleNanos, last);
            }
        }
        groups.addTo(p);
    }

    /**
     * The sample groups of formats 1 to 3, each with its count and bounds; format 3's, one per tick, are gathered
     * into one group each with its ticks (they were written in canonical order, which that keeps).
     */
    private static void readGroups(CodedInputStream in, MergedProfile p, List<String> types, boolean format1,
                                   boolean groupPerTick) throws IOException {
        SampleGroupTable perTick = groupPerTick ? new SampleGroupTable(p.grid) : null;
        for (int n = in.readUInt32(); n > 0; n--) {
            int stack = in.readUInt32();
            int thread = in.readUInt32();
            int link = in.readUInt32() - 1;
            String type = types.get(format1 ? 0 : in.readUInt32());
            long period = in.readInt64();
            long count = in.readInt64();
            long first = in.readInt64();
            long last = first + in.readInt64();
            p.lastSampleNanos = Math.max(p.lastSampleNanos, last);
            if (groupPerTick) {
                perTick.add(perTick.group(stack, thread, link, type, period), count, first, last);
            } else {
                p.samples.add(new MergedProfile.SampleGroup(stack, thread, link, type, period, count, first, last));
            }
        }
        if (groupPerTick) {
            perTick.addTo(p);
        }
    }

    /** Counts per tick, sparse: how many ticks have one, then each tick and its count. */
    private static void ticks(CodedOutputStream out, long[] counts) throws IOException {
        int used = 0;
        for (long count : counts) {
            used += count != 0 ? 1 : 0;
        }
        out.writeUInt32NoTag(used);
        for (int tick = 0; tick < counts.length; tick++) {
            if (counts[tick] != 0) {
                out.writeUInt32NoTag(tick);
                out.writeInt64NoTag(counts[tick]);
            }
        }
    }

    private static long[] ticks(CodedInputStream in, int ticks) throws IOException {
        long[] counts = new long[ticks];
        for (int n = in.readUInt32(); n > 0; n--) {
            int tick = in.readUInt32();
            counts[tick] = in.readInt64();
        }
        return counts;
    }

    private static void chunk(CodedOutputStream out, ChunkAttributes chunk) throws IOException {
        text(out, chunk.profilerId());
        text(out, chunk.platform());
        text(out, chunk.release());
        text(out, chunk.environment());
    }

    private static ChunkAttributes chunk(CodedInputStream in) throws IOException {
        return new ChunkAttributes(text(in), text(in), text(in), text(in));
    }

    /** A string that may be null: a presence flag, then the string. */
    private static void text(CodedOutputStream out, String text) throws IOException {
        out.writeBoolNoTag(text != null);
        if (text != null) {
            out.writeStringNoTag(text);
        }
    }

    private static String text(CodedInputStream in) throws IOException {
        return in.readBool() ? in.readString() : null;
    }
}
