package chunkrelay.chunk;

import chunkrelay.chunk.primitive.GrowableIntArray;
import chunkrelay.chunk.primitive.GrowableList;
import chunkrelay.chunk.primitive.GrowableLongArray;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Reads a V2 chunk's {@code profile} object: samples straight into primitive arrays (repeated thread ids share one
 * String), stacks into one flat array of frame indices, frames deduplicated against the empty frame, thread metadata.
 */
final class SampleV2ProfileReader {
    /** Shared by every frame without fields, so "{}" frames cost a reference each. */
    private static final Frame EMPTY_FRAME = new Frame(null, null, null, null, null, null, null, null, null);
    /** Thread ids compared in place before the id's String is made and looked up. */
    private static final int IN_PLACE_THREAD_IDS = 16;

    private final JsonFactory factory;
    private final JsonParser p;
    private final byte[] payload;
    private final GrowableList<Frame> frames = new GrowableList<>();
    private final GrowableLongArray timestamps = new GrowableLongArray();
    private final GrowableIntArray stackIds = new GrowableIntArray();
    private final GrowableIntArray threadIndices = new GrowableIntArray();
    private final Map<String, Integer> threadIndexById = new HashMap<>();
    private final List<String> threadIds = new ArrayList<>();
    private final PredictedFieldNames sampleFields = new PredictedFieldNames("timestamp", "stack_id", "thread_id");
    /** Each thread id as UTF-8, or null when it cannot be compared with the input in place (it is escaped there). */
    private final List<byte[]> threadIdBytes = new ArrayList<>();
    /** The thread of the sample before: samples of one thread come in runs, so it is compared first. */
    private int lastThread = -1;
    private int[] stackOffsets = {0};
    private int[] stackFrames = {};
    private Map<String, ThreadMetadata> threadMetadata = Map.of();

    /** @param payload the bytes {@code p} reads, which the stacks' second pass reads again */
    SampleV2ProfileReader(JsonFactory factory, JsonParser p, byte[] payload) {
        this.factory = factory;
        this.p = p;
        this.payload = payload;
    }

    /** The chunk with the profile read, and the chunk-level fields its caller read around it. */
    ParsedChunk chunk(ChunkFields fields, boolean hasSampledProfile, boolean hasChunkIdAlias) {
        return new ParsedChunk(fields, frames.toImmutableList(), stackOffsets, stackFrames, timestamps.toArray(),
                stackIds.toArray(), threadIndices.toArray(), threadIds, threadMetadata, hasSampledProfile,
                hasChunkIdAlias);
    }

    void read() throws IOException, ChunkSchemaException {
        JsonFields fields = JsonFields.of(p, "profile");
        while (fields.next()) {
            switch (fields.name()) {
                case "samples" -> {
                    fields.known("samples");
                    samples();
                }
                case "stacks" -> {
                    fields.known("stacks");
                    stacks();
                }
                case "frames" -> {
                    fields.known("frames");
                    frames();
                }
                case "thread_metadata" -> {
                    fields.known("thread_metadata");
                    threadMetadata();
                }
                default -> p.skipChildren();
            }
        }
        fields.require("samples", "stacks", "frames");
    }

    private void samples() throws IOException, ChunkSchemaException {
        JsonValues.expectArray(p, "profile.samples");
        int index = 0;
        while (p.nextToken() != JsonToken.END_ARRAY) {
            try {
                sample();
            } catch (ChunkSchemaException e) {
                // the path is only spelled out on failure, never per sample
                throw new ChunkSchemaException("profile.samples[" + index + "]" + e.getMessage());
            }
            index++;
        }
    }

    /** One sample; errors carry the path below the sample, e.g. {@code .stack_id: ...}. */
    private void sample() throws IOException, ChunkSchemaException {
        if (p.currentToken() != JsonToken.START_OBJECT) {
            throw JsonValues.wrongType(p, "", "an object");
        }
        boolean hasTimestamp = false;
        boolean hasStackId = false;
        int thread = -1;
        long timestamp = 0;
        int stackId = 0;
        for (int position = 0; ; position++) {
            String field = sampleFields.next(p, position);
            if (field == null) {
                break;
            }
            p.nextToken();
            switch (field) {
                case "timestamp" -> {
                    if (hasTimestamp) {
                        throw new ChunkSchemaException("." + field + ": duplicate field");
                    }
                    hasTimestamp = true;
                    timestamp = JsonValues.timestampNanos(p, ".timestamp");
                }
                case "stack_id" -> {
                    if (hasStackId) {
                        throw new ChunkSchemaException("." + field + ": duplicate field");
                    }
                    hasStackId = true;
                    stackId = JsonValues.index(p, ".stack_id");
                }
                case "thread_id" -> {
                    if (thread >= 0) {
                        throw new ChunkSchemaException("." + field + ": duplicate field");
                    }
                    thread = threadIndex();
                }
                default -> p.skipChildren();
            }
        }
        if (!hasTimestamp || !hasStackId || thread < 0) {
            String missing = !hasTimestamp ? "timestamp" : !hasStackId ? "stack_id" : "thread_id";
            throw new ChunkSchemaException("." + missing + ": missing field");
        }
        timestamps.add(timestamp);
        stackIds.add(stackId);
        threadIndices.add(thread);
    }

    /**
     * The index of the sample's thread id (the current token). The known ids are compared with the input's bytes
     * where the token starts, the previous sample's first, so that the usual sample neither decodes the string nor
     * allocates; an id that cannot be compared in place is compared with the decoded token, and a new id is read and
     * checked as a Rust String.
     */
    private int threadIndex() throws IOException, ChunkSchemaException {
        if (p.currentToken() == JsonToken.VALUE_STRING) {
            long start = p.currentTokenLocation().getByteOffset();
            if (lastThread >= 0 && isInPlace(start, threadIdBytes.get(lastThread))) {
                return lastThread;
            }
            int known = Math.min(threadIds.size(), IN_PLACE_THREAD_IDS);
            boolean escapedIds = false;
            for (int t = 0; t < known; t++) {
                byte[] id = threadIdBytes.get(t);
                escapedIds |= id == null;
                if (t != lastThread && isInPlace(start, id)) {
                    return lastThread = t;
                }
            }
            if (escapedIds) {
                char[] text = p.getTextCharacters();
                int offset = p.getTextOffset();
                int length = p.getTextLength();
                for (int t = 0; t < known; t++) {
                    if (threadIdBytes.get(t) == null && sameChars(threadIds.get(t), text, offset, length)) {
                        return lastThread = t;
                    }
                }
            }
        }
        String threadId = JsonValues.string(p, ".thread_id");
        Integer index = threadIndexById.get(threadId);
        if (index == null) {
            index = threadIds.size();
            threadIndexById.put(threadId, index);
            threadIds.add(threadId);
            // an id with a quote or backslash is escaped in JSON: its bytes in the input differ from the id's
            boolean escaped = threadId.indexOf('"') >= 0 || threadId.indexOf('\\') >= 0;
            threadIdBytes.add(escaped ? null : threadId.getBytes(StandardCharsets.UTF_8));
        }
        return lastThread = index;
    }

    /**
     * Whether the string token starting at {@code start} is, byte for byte, {@code id} between its quotes (never for
     * a null id). It reads the input, so the parser skips the string as a token pass would, without decoding it.
     */
    private boolean isInPlace(long start, byte[] id) {
        if (id == null) {
            return false;
        }
        int length = id.length;
        if (start < 0 || start + length + 2 > payload.length || payload[(int) start] != '"'
                || payload[(int) start + length + 1] != '"') {
            return false;
        }
        return Arrays.equals(payload, (int) start + 1, (int) start + 1 + length, id, 0, length);
    }

    /**
     * Two passes over the stacks: the first checks them and counts, the second fills arrays of the
     * exact size. Stacks can be the densest part of a payload (2 bytes per index), so growing arrays
     * there would cost several times the payload.
     */
    private void stacks() throws IOException, ChunkSchemaException {
        JsonValues.expectArray(p, "profile.stacks");
        long start = p.currentTokenLocation().getByteOffset();
        int stackCount = 0;
        long indexCount = 0;
        while (p.nextToken() != JsonToken.END_ARRAY) {
            if (p.currentToken() != JsonToken.START_ARRAY) {
                throw JsonValues.wrongType(p, "profile.stacks[" + stackCount + "]", "an array");
            }
            int depth = 0;
            while (p.nextToken() != JsonToken.END_ARRAY) {
                try {
                    JsonValues.index(p, "");
                } catch (ChunkSchemaException e) {
                    // the path is only spelled out on failure, never per frame index
                    throw new ChunkSchemaException("profile.stacks[" + stackCount + "][" + depth + "]" + e.getMessage());
                }
                depth++;
            }
            indexCount += depth;
            stackCount++;
        }
        stackOffsets = new int[stackCount + 1];
        stackFrames = new int[Math.toIntExact(indexCount)];
        try (JsonParser again = factory.createParser(payload, (int) start, payload.length - (int) start)) {
            again.nextToken();
            int stack = 0;
            int at = 0;
            while (again.nextToken() != JsonToken.END_ARRAY) {
                while (again.nextToken() != JsonToken.END_ARRAY) {
                    // checked by the first pass: a valid usize, ids past int range count as out of range
                    stackFrames[at++] = JsonValues.index(again, "");
                }
                stackOffsets[++stack] = at;
            }
        }
    }
    private void frames() throws IOException, ChunkSchemaException {
        JsonValues.expectArray(p, "profile.frames");
        while (p.nextToken() != JsonToken.END_ARRAY) {
            frames.add(frame("profile.frames[" + frames.size() + "]"));
        }
    }

    private Frame frame(String path) throws IOException, ChunkSchemaException {
        JsonFields fields = JsonFields.of(p, path);
        String absPath = null;
        Integer colno = null;
        String filename = null;
        String function = null;
        Boolean inApp = null;
        Long instructionAddr = null;
        Integer lineno = null;
        String module = null;
        String platform = null;
        while (fields.next()) {
            switch (fields.name()) {
                case "abs_path" -> absPath = JsonValues.optionalString(p, fields.known("abs_path"));
                case "colno", "column" -> colno = JsonValues.optionalU32(p, fields.known("colno"));
                case "filename", "file" -> filename = JsonValues.optionalString(p, fields.known("filename"));
                case "function", "name" -> function = JsonValues.optionalString(p, fields.known("function"));
                case "in_app" -> inApp = JsonValues.optionalBoolean(p, fields.known("in_app"));
                case "instruction_addr" ->
                        instructionAddr = JsonValues.optionalAddress(p, fields.known("instruction_addr"));
                case "lineno", "line" -> lineno = JsonValues.optionalU32(p, fields.known("lineno"));
                case "module" -> module = JsonValues.optionalString(p, fields.known("module"));
                case "platform" -> platform = JsonValues.optionalString(p, fields.known("platform"));
                default -> p.skipChildren();
            }
        }
        Frame frame = new Frame(function, module, filename, absPath, lineno, colno, inApp, instructionAddr, platform);
        return frame.equals(EMPTY_FRAME) ? EMPTY_FRAME : frame;
    }

    private void threadMetadata() throws IOException, ChunkSchemaException {
        JsonValues.expectObject(p, "profile.thread_metadata");
        Map<String, ThreadMetadata> result = new TreeMap<>();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String threadId = JsonValues.unicode(p.currentName(), "profile.thread_metadata");
            p.nextToken();
            String path = "profile.thread_metadata." + JsonValues.abbreviate(threadId);
            JsonFields fields = JsonFields.of(p, path);
            String name = null;
            Integer priority = null;
            while (fields.next()) {
                switch (fields.name()) {
                    case "name" -> name = JsonValues.optionalString(p, fields.known("name"));
                    case "priority" -> priority = JsonValues.optionalU32(p, fields.known("priority"));
                    default -> p.skipChildren();
                }
            }
            result.put(threadId, new ThreadMetadata(name, priority));
        }
        threadMetadata = result;
    }

    private static boolean sameChars(String id, char[] text, int offset, int length) {
        if (id.length() != length) {
            return false;
        }
        for (int i = 0; i < length; i++) {
            if (id.charAt(i) != text[offset + i]) {
                return false;
            }
        }
        return true;
    }
}
