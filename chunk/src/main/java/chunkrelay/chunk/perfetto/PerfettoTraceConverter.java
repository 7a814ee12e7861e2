package chunkrelay.chunk.perfetto;

import chunkrelay.chunk.ThreadMetadata;
import chunkrelay.chunk.perfetto.proto.PerfettoTraceProto;
import chunkrelay.chunk.perfetto.proto.PerfettoTraceProto.TracePacket;
import chunkrelay.chunk.primitive.GrowableIntArray;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.WireFormat;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Converts an Android Perfetto stack-sampling trace into samples as Relay does
 * ({@code relay_profiling::perfetto::convert}). Packets are read one at a time from the {@code Trace} message (never
 * the whole trace at once) and applied in order:
 * <ol>
 *   <li>a packet's sequence ({@code trusted_packet_sequence_id}, 0 without one) has its own interned tables; flag
 *       {@code SEQ_INCREMENTAL_STATE_CLEARED} empties them before the packet's {@code interned_data} is merged;</li>
 *   <li>the first {@code ClockSnapshot} naming both the trace clock ({@code primary_trace_clock}, BOOTTIME by
 *       default) and REALTIME gives the offset from trace time to Unix time;</li>
 *   <li>a {@code PerfSample} with a callstack its sequence can resolve is a sample on thread {@code tid}; frames the
 *       tables do not hold are left out of its stack, which is reversed to leaf first; the first sample's
 *       {@code pid} names its thread {@code main} (on Android the main thread's tid is the pid);</li>
 *   <li>process trees and thread track descriptors name other threads.</li>
 * </ol>
 * Refusals, in Relay's order: malformed protobuf, a packet or trace past {@link PerfettoLimits} (checked as packets
 * arrive), no sample, no usable clock snapshot.
 */
public final class PerfettoTraceConverter {
    private static final int TRACE_PACKET_FIELD = 1;
    private static final int SEQ_INCREMENTAL_STATE_CLEARED = 1;
    private static final int CLOCK_REALTIME = 1;
    private static final int CLOCK_BOOTTIME = 6;
    private static final int SAMPLE_BYTES = 48;

    private final MemoryBudget work = new MemoryBudget("the trace's interned tables", PerfettoLimits.MAX_WORK_BYTES);
    private final MemoryBudget result = new MemoryBudget("the converted profile", PerfettoLimits.MAX_RESULT_BYTES);
    private final Map<Integer, SequenceState> sequences = new HashMap<>();
    private final PerfettoFrames frames = new PerfettoFrames(result);
    private final Map<Integer, String> threadNames = new HashMap<>();
    private final Map<Integer, Integer> threadIndex = new HashMap<>();
    private final List<String> threadIds = new ArrayList<>();
    private long[] sampleTimes = new long[256];
    private final GrowableIntArray sampleStacks = new GrowableIntArray();
    private final GrowableIntArray sampleThreads = new GrowableIntArray();
    private Long clockOffsetNanos;
    private Integer mainPid;
    private int packetCount;
    private int perfSampleCount;

    private PerfettoTraceConverter() {
    }

    /** Converts {@code trace[offset, offset + length)}; never throws anything but {@link PerfettoTraceException}. */
    public static PerfettoProfile convert(byte[] trace, int offset, int length) throws PerfettoTraceException {
        PerfettoTraceConverter converter = new PerfettoTraceConverter();
        try {
            converter.readPackets(trace, offset, length);
        } catch (IOException e) {
            throw new PerfettoTraceException(PerfettoTraceException.Kind.INVALID,
                    "not a Perfetto trace: " + e.getMessage());
        }
        return converter.profile();
    }

    private void readPackets(byte[] trace, int offset, int length) throws IOException, PerfettoTraceException {
        CodedInputStream in = CodedInputStream.newInstance(trace, offset, length);
        while (!in.isAtEnd()) {
            int tag = in.readTag();
            if (WireFormat.getTagFieldNumber(tag) != TRACE_PACKET_FIELD) {
                in.skipField(tag);
                continue;
            }
            if (WireFormat.getTagWireType(tag) != WireFormat.WIRETYPE_LENGTH_DELIMITED) {
                throw new InvalidProtocolBufferException("packet field with wire type " + WireFormat.getTagWireType(tag));
            }
            if (++packetCount >= PerfettoLimits.MAX_TRACE_PACKETS) {
                throw tooLarge("the trace has " + PerfettoLimits.MAX_TRACE_PACKETS + " packets or more");
            }
            long size = in.readRawVarint64();
            if (Long.compareUnsigned(size, PerfettoLimits.MAX_TRACE_PACKET_BYTES) > 0) {
                throw tooLarge("packet " + packetCount + " is " + Long.toUnsignedString(size) + " bytes, more than "
                        + PerfettoLimits.MAX_TRACE_PACKET_BYTES);
            }
            int start = offset + in.getTotalBytesRead();
            if (size > offset + length - start) {
                throw new InvalidProtocolBufferException("packet " + packetCount + " of " + size
                        + " bytes runs past the end of the trace");
            }
            TracePacket packet = TracePacket.parser().parseFrom(trace, start, (int) size);
            in.skipRawBytes((int) size);
            if (packet.hasPerfSample() && ++perfSampleCount >= PerfettoLimits.MAX_SAMPLES) {
                throw tooLarge("the trace has " + PerfettoLimits.MAX_SAMPLES + " samples or more");
            }
            apply(packet);
        }
    }

    private void apply(TracePacket packet) throws PerfettoTraceException {
        SequenceState sequence = sequence(packet.hasTrustedPacketSequenceId() ? packet.getTrustedPacketSequenceId() : 0);
        if ((packet.getSequenceFlags() & SEQ_INCREMENTAL_STATE_CLEARED) != 0) {
            sequence.clear();
        }
        if (packet.hasInternedData()) {
            sequence.merge(packet.getInternedData());
        }
        switch (packet.getDataCase()) {
            case CLOCK_SNAPSHOT -> {
                if (clockOffsetNanos == null) {
                    clockOffsetNanos = clockOffset(packet.getClockSnapshot());
                }
            }
            case PERF_SAMPLE -> sample(packet, sequence);
            case PROCESS_TREE -> {
                for (PerfettoTraceProto.ProcessTree.Thread thread : packet.getProcessTree().getThreadsList()) {
                    if (thread.hasTid() && thread.hasName()) {
                        nameThread(thread.getTid(), thread.getName());
                    }
                }
            }
            case TRACK_DESCRIPTOR -> {
                PerfettoTraceProto.ThreadDescriptor thread = packet.getTrackDescriptor().getThread();
                if (thread.hasTid() && thread.hasThreadName() && thread.getTid() == (int) thread.getTid()) {
                    nameThread((int) thread.getTid(), thread.getThreadName());
                }
            }
            default -> {
                // every other packet carries nothing a profile needs
            }
        }
    }

    private SequenceState sequence(int id) throws PerfettoTraceException {
        SequenceState sequence = sequences.get(id);
        if (sequence == null) {
            if (sequences.size() >= PerfettoLimits.MAX_SEQUENCE_IDS) {
                throw tooLarge("the trace has more than " + PerfettoLimits.MAX_SEQUENCE_IDS + " packet sequences");
            }
            sequence = new SequenceState(work);
            sequences.put(id, sequence);
        }
        return sequence;
    }

    private void nameThread(int tid, String name) throws PerfettoTraceException {
        if (!threadNames.containsKey(tid)) {
            work.add(96 + 2L * name.length());
            threadNames.put(tid, name);
        }
    }

    /**
     * REALTIME minus the trace clock, from a snapshot that has both; 0 when the trace clock is REALTIME; null
     * otherwise (or when the difference does not fit a signed 64-bit count).
     */
    static Long clockOffset(PerfettoTraceProto.ClockSnapshot snapshot) {
        int primary = snapshot.hasPrimaryTraceClock() ? snapshot.getPrimaryTraceClock().getNumber() : CLOCK_BOOTTIME;
        if (primary == CLOCK_REALTIME) {
            return 0L;
        }
        Long realtime = null;
        Long trace = null;
        for (PerfettoTraceProto.ClockSnapshot.Clock clock : snapshot.getClocksList()) {
            if (!clock.hasClockId()) {
                continue;
            }
            Long timestamp = clock.hasTimestamp() ? clock.getTimestamp() : null;
            if (clock.getClockId() == CLOCK_REALTIME) {
                realtime = timestamp;
            } else if (clock.getClockId() == primary) {
                trace = timestamp;
            }
        }
        if (realtime == null || trace == null || realtime < 0 || trace < 0) {
            return null;
        }
        return realtime - trace;
    }

    private void sample(TracePacket packet, SequenceState sequence) throws PerfettoTraceException {
        PerfettoTraceProto.PerfSample perf = packet.getPerfSample();
        if (!perf.hasCallstackIid()) {
            return;
        }
        if (mainPid == null && perf.hasPid()) {
            mainPid = perf.getPid();
        }
        Integer stackId = resolveCallstack(sequence, perf.getCallstackIid());
        if (stackId == null) {
            return;
        }
        result.add(SAMPLE_BYTES);
        int sample = sampleStacks.size();
        if (sample == sampleTimes.length) {
            sampleTimes = Arrays.copyOf(sampleTimes, sample * 2);
        }
        sampleTimes[sample] = packet.getTimestamp();
        sampleStacks.add(stackId);
        int tid = perf.getTid();
        Integer thread = threadIndex.get(tid);
        if (thread == null) {
            thread = threadIds.size();
            threadIndex.put(tid, thread);
            threadIds.add(Integer.toUnsignedString(tid));
        }
        sampleThreads.add(thread);
    }

    private Integer resolveCallstack(SequenceState sequence, long callstackIid) throws PerfettoTraceException {
        Integer known = sequence.knownStackId(callstackIid);
        if (known != null) {
            return known;
        }
        long[] frameIds = sequence.callstack(callstackIid);
        if (frameIds == null) {
            return null;
        }
        if (frameIds.length > PerfettoLimits.MAX_CALLSTACK_DEPTH) {
            throw tooLarge("callstack " + Long.toUnsignedString(callstackIid) + " is " + frameIds.length
                    + " frames deep, more than " + PerfettoLimits.MAX_CALLSTACK_DEPTH);
        }
        int[] leafFirst = new int[frameIds.length];
        int first = leafFirst.length;
        for (long frameIid : frameIds) {
            Integer index = sequence.knownFrameIndex(frameIid);
            if (index == null) {
                SequenceState.InternedFrame interned = sequence.frame(frameIid);
                if (interned == null) {
                    continue;
                }
                SequenceState.InternedMapping mapping = sequence.mapping(interned.mappingId());
                String path = sequence.mappingPath(interned.mappingId());
                if (mapping != null && path != null) {
                    frames.image(path, mapping, sequence.buildId(mapping.buildId()));
                }
                index = frames.frame(sequence.functionName(interned.functionNameId()), path, interned.relPc(),
                        mapping);
                sequence.rememberFrameIndex(frameIid, index);
            }
            leafFirst[--first] = index;
        }
        // the interned callstack is root first; a chunk's stacks are leaf first
        int stackId = frames.stack(Arrays.copyOfRange(leafFirst, first, leafFirst.length));
        sequence.rememberStackId(callstackIid, stackId);
        return stackId;
    }

    private PerfettoProfile profile() throws PerfettoTraceException {
        int count = sampleStacks.size();
        if (count == 0) {
            throw new PerfettoTraceException(PerfettoTraceException.Kind.NO_SAMPLES, perfSampleCount == 0
                    ? "the trace has no PerfSample packets"
                    : "none of the trace's " + perfSampleCount + " PerfSample packets has a callstack it defines");
        }
        if (clockOffsetNanos == null) {
            throw new PerfettoTraceException(PerfettoTraceException.Kind.INVALID,
                    "the trace has no ClockSnapshot with both REALTIME and its trace clock: its samples cannot be "
                            + "placed in time");
        }
        long[] times = Arrays.copyOf(sampleTimes, count);
        for (int i = 0; i < count; i++) {
            if (times[i] < 0) {
                throw new PerfettoTraceException(PerfettoTraceException.Kind.INVALID,
                        "sample time " + Long.toUnsignedString(times[i]) + " ns is past what this relay represents");
            }
            try {
                times[i] = Math.addExact(times[i], clockOffsetNanos);
            } catch (ArithmeticException overflow) {
                throw new PerfettoTraceException(PerfettoTraceException.Kind.INVALID,
                        "sample time plus the clock offset is past what this relay represents");
            }
        }
        Map<String, ThreadMetadata> metadata = new TreeMap<>();
        for (Map.Entry<Integer, Integer> thread : threadIndex.entrySet()) {
            int tid = thread.getKey();
            String name = mainPid != null && tid == mainPid ? "main" : threadNames.get(tid);
            if (name != null) {
                metadata.put(threadIds.get(thread.getValue()), new ThreadMetadata(name, null));
            }
        }
        return new PerfettoProfile(frames.frames(), frames.stackOffsets(), frames.stackFrames(), times,
                sampleStacks.toArray(), sampleThreads.toArray(), threadIds.toArray(String[]::new), metadata,
                frames.images());
    }

    private static PerfettoTraceException tooLarge(String detail) {
        return new PerfettoTraceException(PerfettoTraceException.Kind.TOO_LARGE, detail);
    }
}
