package chunkrelay.chunk.perfetto;

import chunkrelay.chunk.perfetto.proto.PerfettoTraceProto;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The incremental state of one packet sequence ({@code trusted_packet_sequence_id}): its interned tables, each
 * {@code InternedData} field its own id space as Perfetto defines it, and what has been resolved from them (frame and
 * callstack ids to the profile's indices, mapping ids to paths). Both are dropped when a packet of the sequence sets
 * {@code SEQ_INCREMENTAL_STATE_CLEARED}. Entries without an iid, and strings that are not UTF-8, are skipped.
 */
final class SequenceState {
    /** What an interned frame refers to; absent fields are null. */
    record InternedFrame(Long functionNameId, Long mappingId, Long relPc) {
    }

    /** An interned mapping; absent fields are null. */
    record InternedMapping(Long buildId, Long start, Long end, Long loadBias, long[] pathStringIds) {
    }

    // estimated heap bytes per entry (map node, boxed key, value object), for the work budget
    private static final int ENTRY_BYTES = 80;

    private final MemoryBudget budget;
    private final Map<Long, String> functionNames = new HashMap<>();
    private final Map<Long, String> mappingPaths = new HashMap<>();
    private final Map<Long, byte[]> buildIds = new HashMap<>();
    private final Map<Long, InternedFrame> frames = new HashMap<>();
    private final Map<Long, long[]> callstacks = new HashMap<>();
    private final Map<Long, InternedMapping> mappings = new HashMap<>();
    private final Map<Long, Integer> frameIndices = new HashMap<>();
    private final Map<Long, Integer> stackIds = new HashMap<>();
    private final Map<Long, Optional<String>> resolvedPaths = new HashMap<>();
    private long usedBytes;

    SequenceState(MemoryBudget budget) {
        this.budget = budget;
    }

    /** Forgets everything interned and resolved on this sequence. */
    void clear() {
        functionNames.clear();
        mappingPaths.clear();
        buildIds.clear();
        frames.clear();
        callstacks.clear();
        mappings.clear();
        frameIndices.clear();
        stackIds.clear();
        resolvedPaths.clear();
        budget.release(usedBytes);
        usedBytes = 0;
    }

    void merge(PerfettoTraceProto.InternedData data) throws PerfettoTraceException {
        for (PerfettoTraceProto.InternedString s : data.getFunctionNamesList()) {
            putString(functionNames, s);
        }
        for (PerfettoTraceProto.InternedString s : data.getMappingPathsList()) {
            putString(mappingPaths, s);
        }
        for (PerfettoTraceProto.InternedString s : data.getBuildIdsList()) {
            if (s.hasIid() && s.hasStr()) {
                byte[] bytes = s.getStr().toByteArray();
                charge(ENTRY_BYTES + bytes.length);
                buildIds.put(s.getIid(), bytes);
            }
        }
        for (PerfettoTraceProto.Frame f : data.getFramesList()) {
            if (f.hasIid()) {
                charge(ENTRY_BYTES + 64);
                frames.put(f.getIid(), new InternedFrame(f.hasFunctionNameId() ? f.getFunctionNameId() : null,
                        f.hasMappingId() ? f.getMappingId() : null, f.hasRelPc() ? f.getRelPc() : null));
            }
        }
        for (PerfettoTraceProto.Callstack c : data.getCallstacksList()) {
            if (c.hasIid()) {
                long[] frameIds = new long[c.getFrameIdsCount()];
                for (int i = 0; i < frameIds.length; i++) {
                    frameIds[i] = c.getFrameIds(i);
                }
                charge(ENTRY_BYTES + 16 + 8L * frameIds.length);
                callstacks.put(c.getIid(), frameIds);
            }
        }
        for (PerfettoTraceProto.Mapping m : data.getMappingsList()) {
            if (m.hasIid()) {
                long[] paths = new long[m.getPathStringIdsCount()];
                for (int i = 0; i < paths.length; i++) {
                    paths[i] = m.getPathStringIds(i);
                }
                charge(ENTRY_BYTES + 96 + 8L * paths.length);
                mappings.put(m.getIid(), new InternedMapping(m.hasBuildId() ? m.getBuildId() : null,
                        m.hasStart() ? m.getStart() : null, m.hasEnd() ? m.getEnd() : null,
                        m.hasLoadBias() ? m.getLoadBias() : null, paths));
            }
        }
    }

    private void putString(Map<Long, String> table, PerfettoTraceProto.InternedString s)
            throws PerfettoTraceException {
        if (!s.hasIid() || !s.hasStr()) {
            return;
        }
        try {
            String text = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(s.getStr().toByteArray())).toString();
            charge(ENTRY_BYTES + 40 + text.length());
            table.put(s.getIid(), text);
        } catch (CharacterCodingException notUtf8) {
            // Relay skips strings that are not UTF-8; frames naming them have no name
        }
    }

    private void charge(long bytes) throws PerfettoTraceException {
        budget.add(bytes);
        usedBytes += bytes;
    }

    long[] callstack(long iid) {
        return callstacks.get(iid);
    }

    InternedFrame frame(long iid) {
        return frames.get(iid);
    }

    String functionName(Long iid) {
        return iid == null ? null : functionNames.get(iid);
    }

    InternedMapping mapping(Long iid) {
        return iid == null ? null : mappings.get(iid);
    }

    byte[] buildId(Long iid) {
        return iid == null ? null : buildIds.get(iid);
    }

    /**
     * The path of a frame's mapping: its interned segments joined with '/', skipping unknown ones; null without a
     * mapping id, without segments or with more than {@link PerfettoLimits#MAX_PATH_SEGMENTS}. Resolved once per id
     * until the state is cleared, as Relay caches it.
     */
    String mappingPath(Long mappingId) throws PerfettoTraceException {
        if (mappingId == null) {
            return null;
        }
        Optional<String> known = resolvedPaths.get(mappingId);
        if (known != null) {
            return known.orElse(null);
        }
        InternedMapping mapping = mappings.get(mappingId);
        StringBuilder path = new StringBuilder();
        if (mapping != null && mapping.pathStringIds().length <= PerfettoLimits.MAX_PATH_SEGMENTS) {
            for (long segmentId : mapping.pathStringIds()) {
                String segment = mappingPaths.get(segmentId);
                if (segment != null) {
                    if (!path.isEmpty()) {
                        path.append('/');
                    }
                    path.append(segment);
                }
            }
        }
        String resolved = path.isEmpty() ? null : path.toString();
        charge(ENTRY_BYTES + (resolved == null ? 0 : 40 + resolved.length()));
        resolvedPaths.put(mappingId, Optional.ofNullable(resolved));
        return resolved;
    }

    Integer knownFrameIndex(long frameIid) {
        return frameIndices.get(frameIid);
    }

    void rememberFrameIndex(long frameIid, int index) throws PerfettoTraceException {
        charge(ENTRY_BYTES);
        frameIndices.put(frameIid, index);
    }

    Integer knownStackId(long callstackIid) {
        return stackIds.get(callstackIid);
    }

    void rememberStackId(long callstackIid, int stackId) throws PerfettoTraceException {
        charge(ENTRY_BYTES);
        stackIds.put(callstackIid, stackId);
    }
}
