package chunkrelay.chunk;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Streams a Sample Format V2 payload into a {@link ParsedChunk}, checking types as Relay's serde structs
 * ({@code sample::v2::ProfileChunk} and its parts) do: required fields, JSON types, integer ranges,
 * duplicate keys, explicit nulls where an object or array is required. Unknown keys are skipped and not
 * kept. Samples go straight into primitive arrays; repeated thread ids share one String. The same reader takes the
 * JSON of Android ART trace chunks and the metadata of Perfetto chunks.
 */
final class SampleV2Parser {
    /** Shared by every frame without fields, so "{}" frames cost a reference each. */
    private static final Frame EMPTY_FRAME = new Frame(null, null, null, null, null, null, null, null, null);

    private final JsonFactory factory;

    SampleV2Parser(JsonFactory factory) {
        this.factory = factory;
    }

    ParsedChunk parse(byte[] payload) throws IOException, ChunkSchemaException {
        try (JsonParser p = factory.createParser(payload)) {
            p.nextToken();
            return (ParsedChunk) new Reader(factory, p, payload, Mode.SAMPLE_V2).root();
        }
    }

    /**
     * Reads an Android ART trace chunk (Relay's {@code AndroidProfileChunk}): the same fields as a V2 chunk, but
     * {@code release} and {@code timestamp} are required, {@code sampled_profile} is a base64 string, and
     * {@code profile} (a decoded trace in Relay's own output, never sent by SDKs) is skipped.
     */
    ParsedAndroidChunk parseAndroid(byte[] payload) throws IOException, ChunkSchemaException {
        try (JsonParser p = factory.createParser(payload)) {
            p.nextToken();
            return (ParsedAndroidChunk) new Reader(factory, p, payload, Mode.ANDROID_TRACE).root();
        }
    }

    /**
     * Reads the JSON metadata of a Perfetto chunk ({@code payload[0, length)}): an Android chunk's fields without
     * {@code sampled_profile}, plus {@code content_type}; {@code release} and {@code timestamp} are optional (the
     * trace's clock snapshot places it in time). A missing required field is reported, not thrown, so that the
     * content type can be checked first.
     */
    ParsedPerfettoMetadata parsePerfettoMetadata(byte[] payload, int length) throws IOException, ChunkSchemaException {
        try (JsonParser p = factory.createParser(payload, 0, length)) {
            p.nextToken();
            return (ParsedPerfettoMetadata) new Reader(factory, p, payload, Mode.PERFETTO_METADATA).root();
        }
    }

    /** What a payload is read as. */
    private enum Mode {
        SAMPLE_V2, ANDROID_TRACE, PERFETTO_METADATA
    }

    /** Thread ids compared in place before the id's String is made and looked up. */
    private static final int IN_PLACE_THREAD_IDS = 16;

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

    /** One parse: the state of the chunk being read. */
    private static final class Reader {
        private final JsonFactory factory;
        private final JsonParser p;
        private final byte[] payload;
        private final boolean android;
        private final Mode mode;
        private final GrowableList<Frame> frames = new GrowableList<>();
        private final GrowableLongArray timestamps = new GrowableLongArray();
        private final GrowableIntArray stackIds = new GrowableIntArray();
        private final GrowableIntArray threadIndices = new GrowableIntArray();
        private final Map<String, Integer> threadIndexById = new HashMap<>();
        private final List<String> threadIds = new ArrayList<>();
        private int[] stackOffsets = {0};
        private int[] stackFrames = {};
        private Map<String, ThreadMetadata> threadMetadata = Map.of();
        private List<DebugImage> debugImages = List.of();
        private Map<String, Measurement> measurements = Map.of();

        Reader(JsonFactory factory, JsonParser p, byte[] payload, Mode mode) {
            this.factory = factory;
            this.p = p;
            this.payload = payload;
            this.mode = mode;
            this.android = mode != Mode.SAMPLE_V2;
        }

        /** A {@link ParsedChunk}, or a {@link ParsedAndroidChunk} when reading an Android trace chunk. */
        Object root() throws IOException, ChunkSchemaException {
            JsonValues.expectObject(p, "the chunk");
            Fields seen = new Fields("");
            SentryUuid chunkId = null;
            SentryUuid profilerId = null;
            String platform = null;
            String release = null;
            String environment = null;
            ClientSdk clientSdk = null;
            String version = null;
            boolean hasSampledProfile = false;
            boolean hasChunkIdAlias = false;
            long timestampNanos = 0;
            ParsedAndroidChunk.SampledProfileText sampledProfile = null;
            String contentType = null;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                p.nextToken();
                switch (name) {
                    case "sampled_profile" -> {
                        // for V2, read only for the version dispatch, with the minimal parse's duplicate check
                        seen.mark(name);
                        hasSampledProfile = p.currentToken() != JsonToken.VALUE_NULL;
                        if (mode == Mode.ANDROID_TRACE && hasSampledProfile) {
                            sampledProfile = sampledProfileText();
                        } else {
                            p.skipChildren();
                        }
                    }
                    case "timestamp" -> {
                        if (android) {
                            seen.mark(name);
                            timestampNanos = JsonValues.timestampNanos(p, name);
                        } else {
                            p.skipChildren();
                        }
                    }
                    case "content_type" -> {
                        if (mode == Mode.PERFETTO_METADATA) {
                            seen.mark(name);
                            contentType = JsonValues.optionalString(p, name);
                        } else {
                            p.skipChildren();
                        }
                    }
                    case "chunk_id" -> {
                        seen.mark(name);
                        chunkId = uuid(name);
                    }
                    case "event_id", "profile_id" -> {
                        // only the minimal parse reads these, as aliases of chunk_id
                        hasChunkIdAlias = true;
                        p.skipChildren();
                    }
                    case "profiler_id" -> {
                        seen.mark(name);
                        profilerId = uuid(name);
                    }
                    case "platform" -> {
                        seen.mark(name);
                        platform = JsonValues.string(p, name);
                    }
                    case "release" -> {
                        seen.mark(name);
                        release = JsonValues.optionalString(p, name);
                    }
                    case "environment" -> {
                        seen.mark(name);
                        environment = JsonValues.optionalString(p, name);
                    }
                    case "client_sdk" -> {
                        seen.mark(name);
                        clientSdk = clientSdk();
                    }
                    case "version" -> {
                        seen.mark(name);
                        version = MinimalChunk.version(p);
                    }
                    case "debug_meta" -> {
                        seen.mark(name);
                        debugMeta();
                    }
                    case "measurements" -> {
                        seen.mark(name);
                        measurements();
                    }
                    case "profile" -> {
                        seen.mark(name);
                        if (android) {
                            p.skipChildren();
                        } else {
                            profile();
                        }
                    }
                    default -> p.skipChildren();
                }
            }
            if (mode == Mode.PERFETTO_METADATA) {
                return new ParsedPerfettoMetadata(chunkId, profilerId, platform, release, environment, clientSdk,
                        version, debugImages, measurements, contentType,
                        seen.firstMissing("chunk_id", "profiler_id", "platform", "client_sdk"));
            }
            if (android) {
                seen.require("chunk_id", "profiler_id", "platform", "client_sdk", "release", "timestamp");
                if (release == null) {
                    throw new ChunkSchemaException("release: invalid type: null, expected a string");
                }
                return new ParsedAndroidChunk(chunkId, profilerId, platform, release, environment, clientSdk, version,
                        debugImages, measurements, timestampNanos, sampledProfile);
            }
            seen.require("chunk_id", "profiler_id", "platform", "client_sdk", "version", "profile");
            return new ParsedChunk(chunkId, profilerId, platform, release, environment, clientSdk, version,
                    frames.toImmutableList(), stackOffsets, stackFrames, timestamps.toArray(),
                    stackIds.toArray(), threadIndices.toArray(), threadIds, threadMetadata, debugImages,
                    measurements, hasSampledProfile, hasChunkIdAlias);
        }

        /**
         * The base64 string of {@code sampled_profile}, located in the payload rather than copied: it is most of an
         * Android chunk. A string with JSON escapes (never written by an SDK) is unescaped into its own bytes.
         */
        private ParsedAndroidChunk.SampledProfileText sampledProfileText() throws IOException, ChunkSchemaException {
            if (p.currentToken() != JsonToken.VALUE_STRING) {
                throw JsonValues.wrongType(p, "sampled_profile", "a string");
            }
            long quote = p.currentTokenLocation().getByteOffset();
            if (quote >= 0 && quote < payload.length && payload[(int) quote] == '"') {
                int from = (int) quote + 1;
                int to = from;
                while (to < payload.length && payload[to] != '"' && payload[to] != '\\') {
                    to++;
                }
                if (to < payload.length && payload[to] == '"') {
                    return new ParsedAndroidChunk.SampledProfileText(payload, from, to);
                }
            }
            byte[] text = JsonValues.string(p, "sampled_profile").getBytes(java.nio.charset.StandardCharsets.UTF_8);
            return new ParsedAndroidChunk.SampledProfileText(text, 0, text.length);
        }

        private SentryUuid uuid(String path) throws IOException, ChunkSchemaException {
            String text = JsonValues.string(p, path);
            SentryUuid id = SentryUuid.parseOrNull(text);
            if (id == null) {
                throw new ChunkSchemaException(path + ": \"" + JsonValues.abbreviate(text) + "\" is not a UUID");
            }
            return id;
        }

        private ClientSdk clientSdk() throws IOException, ChunkSchemaException {
            JsonValues.expectObject(p, "client_sdk");
            Fields seen = new Fields("client_sdk.");
            String name = null;
            String version = null;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                p.nextToken();
                switch (field) {
                    case "name" -> {
                        seen.mark(field);
                        name = JsonValues.string(p, "client_sdk.name");
                    }
                    case "version" -> {
                        seen.mark(field);
                        version = JsonValues.string(p, "client_sdk.version");
                    }
                    default -> p.skipChildren();
                }
            }
            seen.require("name", "version");
            return new ClientSdk(name, version);
        }

        private void debugMeta() throws IOException, ChunkSchemaException {
            JsonValues.expectObject(p, "debug_meta");
            Fields seen = new Fields("debug_meta.");
            List<DebugImage> images = new ArrayList<>();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                p.nextToken();
                if (field.equals("images")) {
                    seen.mark(field);
                    JsonValues.expectArray(p, "debug_meta.images");
                    while (p.nextToken() != JsonToken.END_ARRAY) {
                        images.add(debugImage("debug_meta.images[" + images.size() + "]"));
                    }
                } else {
                    p.skipChildren();
                }
            }
            seen.require("images");
            debugImages = images;
        }

        private DebugImage debugImage(String path) throws IOException, ChunkSchemaException {
            JsonValues.expectObject(p, path);
            Fields seen = new Fields(path + ".");
            String type = null;
            String codeFile = null;
            String debugId = null;
            Long imageAddr = null;
            Long imageVmaddr = null;
            long imageSize = 0;
            String uuid = null;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                p.nextToken();
                String fieldPath = path + "." + field;
                switch (field) {
                    case "type" -> {
                        seen.mark(field);
                        type = JsonValues.string(p, fieldPath);
                        if (!DebugImageTypes.contains(type)) {
                            throw new ChunkSchemaException(fieldPath + ": unknown variant \""
                                    + JsonValues.abbreviate(type) + "\", expected one of " + DebugImageTypes.NAMES);
                        }
                    }
                    case "code_file", "name" -> {
                        seen.mark("code_file");
                        codeFile = JsonValues.optionalString(p, fieldPath);
                    }
                    case "debug_id", "id" -> {
                        seen.mark("debug_id");
                        debugId = JsonValues.optionalString(p, fieldPath);
                        if (debugId != null && !DebugImageTypes.isDebugId(debugId)) {
                            throw new ChunkSchemaException(fieldPath + ": \"" + JsonValues.abbreviate(debugId)
                                    + "\" is not a debug id");
                        }
                    }
                    case "image_addr" -> {
                        seen.mark(field);
                        imageAddr = JsonValues.optionalAddress(p, fieldPath);
                    }
                    case "image_vmaddr" -> {
                        seen.mark(field);
                        imageVmaddr = JsonValues.optionalAddress(p, fieldPath);
                    }
                    case "image_size" -> {
                        seen.mark(field);
                        imageSize = numberOrNumericString(fieldPath);
                    }
                    case "uuid", "build_id" -> {
                        seen.mark("uuid");
                        uuid = JsonValues.optionalString(p, fieldPath);
                        if (uuid != null && SentryUuid.parseOrNull(uuid) == null) {
                            throw new ChunkSchemaException(fieldPath + ": \"" + JsonValues.abbreviate(uuid)
                                    + "\" is not a UUID");
                        }
                    }
                    default -> p.skipChildren();
                }
            }
            seen.require("type");
            return new DebugImage(type, imageAddr, imageSize == 0 ? null : imageSize, imageVmaddr, codeFile,
                    debugId, null, uuid, null);
        }

        /** Relay's {@code deserialize_number_from_string} into u64: a JSON u64 or a string holding one. */
        private long numberOrNumericString(String path) throws IOException, ChunkSchemaException {
            if (p.currentToken() == JsonToken.VALUE_STRING) {
                Long value = JsonValues.parseUnsignedAscii(p.getText(), 10);
                if (value == null) {
                    throw new ChunkSchemaException(path + ": \"" + JsonValues.abbreviate(p.getText())
                            + "\" is not an unsigned 64-bit integer");
                }
                return value;
            }
            return JsonValues.u64(p, path);
        }

        private void measurements() throws IOException, ChunkSchemaException {
            JsonValues.expectObject(p, "measurements");
            Map<String, Measurement> result = new TreeMap<>();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String key = JsonValues.unicode(p.currentName(), "measurements");
                p.nextToken();
                result.put(key, measurement("measurements." + JsonValues.abbreviate(key)));
            }
            measurements = result;
        }

        private Measurement measurement(String path) throws IOException, ChunkSchemaException {
            JsonValues.expectObject(p, path);
            Fields seen = new Fields(path + ".");
            String unit = null;
            List<double[]> values = new ArrayList<>();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                p.nextToken();
                switch (field) {
                    case "unit" -> {
                        seen.mark(field);
                        unit = MeasurementUnits.canonical(JsonValues.string(p, path + ".unit"));
                        if (unit == null) {
                            throw new ChunkSchemaException(path + ".unit: unknown variant \""
                                    + JsonValues.abbreviate(p.getText()) + "\", expected one of " + MeasurementUnits.NAMES);
                        }
                    }
                    case "values" -> {
                        seen.mark(field);
                        values.clear();
                        JsonValues.expectArray(p, path + ".values");
                        while (p.nextToken() != JsonToken.END_ARRAY) {
                            values.add(measurementValue(path + ".values[" + values.size() + "]"));
                        }
                    }
                    default -> p.skipChildren();
                }
            }
            seen.require("unit", "values");
            double[] timestampsOut = new double[values.size()];
            double[] valuesOut = new double[values.size()];
            for (int i = 0; i < values.size(); i++) {
                timestampsOut[i] = values.get(i)[0];
                valuesOut[i] = values.get(i)[1];
            }
            return new Measurement(unit, timestampsOut, valuesOut);
        }

        private double[] measurementValue(String path) throws IOException, ChunkSchemaException {
            JsonValues.expectObject(p, path);
            Fields seen = new Fields(path + ".");
            double timestamp = 0;
            double value = 0;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                p.nextToken();
                switch (field) {
                    case "timestamp" -> {
                        seen.mark(field);
                        timestamp = JsonValues.finiteDouble(p, path + ".timestamp");
                    }
                    case "value" -> {
                        seen.mark(field);
                        value = JsonValues.finiteDouble(p, path + ".value");
                    }
                    default -> p.skipChildren();
                }
            }
            seen.require("timestamp", "value");
            return new double[] {timestamp, value};
        }

        private void profile() throws IOException, ChunkSchemaException {
            JsonValues.expectObject(p, "profile");
            Fields seen = new Fields("profile.");
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                p.nextToken();
                switch (field) {
                    case "samples" -> {
                        seen.mark(field);
                        samples();
                    }
                    case "stacks" -> {
                        seen.mark(field);
                        stacks();
                    }
                    case "frames" -> {
                        seen.mark(field);
                        frames();
                    }
                    case "thread_metadata" -> {
                        seen.mark(field);
                        threadMetadata();
                    }
                    default -> p.skipChildren();
                }
            }
            seen.require("samples", "stacks", "frames");
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
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
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
         * The index of the sample's thread id (the current token). The few ids of a chunk are compared in place
         * first, so that the usual sample allocates no String; a new id is read and checked as a Rust String.
         */
        private int threadIndex() throws IOException, ChunkSchemaException {
            if (p.currentToken() == JsonToken.VALUE_STRING) {
                char[] text = p.getTextCharacters();
                int offset = p.getTextOffset();
                int length = p.getTextLength();
                for (int t = 0; t < Math.min(threadIds.size(), IN_PLACE_THREAD_IDS); t++) {
                    if (sameChars(threadIds.get(t), text, offset, length)) {
                        return t;
                    }
                }
            }
            String threadId = JsonValues.string(p, ".thread_id");
            Integer index = threadIndexById.get(threadId);
            if (index == null) {
                index = threadIds.size();
                threadIndexById.put(threadId, index);
                threadIds.add(threadId);
            }
            return index;
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
            JsonValues.expectObject(p, path);
            Fields seen = new Fields(path + ".");
            String absPath = null;
            Integer colno = null;
            String filename = null;
            String function = null;
            Boolean inApp = null;
            Long instructionAddr = null;
            Integer lineno = null;
            String module = null;
            String platform = null;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                p.nextToken();
                switch (field) {
                    case "abs_path" -> {
                        seen.mark(field);
                        absPath = JsonValues.optionalString(p, path + ".abs_path");
                    }
                    case "colno", "column" -> {
                        seen.mark("colno");
                        colno = JsonValues.optionalU32(p, path + "." + field);
                    }
                    case "filename", "file" -> {
                        seen.mark("filename");
                        filename = JsonValues.optionalString(p, path + "." + field);
                    }
                    case "function", "name" -> {
                        seen.mark("function");
                        function = JsonValues.optionalString(p, path + "." + field);
                    }
                    case "in_app" -> {
                        seen.mark(field);
                        inApp = JsonValues.optionalBoolean(p, path + ".in_app");
                    }
                    case "instruction_addr" -> {
                        seen.mark(field);
                        instructionAddr = JsonValues.optionalAddress(p, path + ".instruction_addr");
                    }
                    case "lineno", "line" -> {
                        seen.mark("lineno");
                        lineno = JsonValues.optionalU32(p, path + "." + field);
                    }
                    case "module" -> {
                        seen.mark(field);
                        module = JsonValues.optionalString(p, path + ".module");
                    }
                    case "platform" -> {
                        seen.mark(field);
                        platform = JsonValues.optionalString(p, path + ".platform");
                    }
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
                JsonValues.expectObject(p, path);
                Fields seen = new Fields(path + ".");
                String name = null;
                Integer priority = null;
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String field = p.currentName();
                    p.nextToken();
                    switch (field) {
                        case "name" -> {
                            seen.mark(field);
                            name = JsonValues.optionalString(p, path + ".name");
                        }
                        case "priority" -> {
                            seen.mark(field);
                            priority = JsonValues.optionalU32(p, path + ".priority");
                        }
                        default -> p.skipChildren();
                    }
                }
                result.put(threadId, new ThreadMetadata(name, priority));
            }
            threadMetadata = result;
        }
    }

    /** The known keys seen in one JSON object, for serde's duplicate-field and missing-field errors. */
    private static final class Fields {
        private final String path;
        private final List<String> seen = new ArrayList<>(8);

        Fields(String path) {
            this.path = path;
        }

        void mark(String field) throws ChunkSchemaException {
            if (seen.contains(field)) {
                throw new ChunkSchemaException(path + field + ": duplicate field");
            }
            seen.add(field);
        }

        /** The first of {@code fields} not seen, as an error detail, or null when all were. */
        String firstMissing(String... fields) {
            for (String field : fields) {
                if (!seen.contains(field)) {
                    return path + field + ": missing field";
                }
            }
            return null;
        }

        void require(String... fields) throws ChunkSchemaException {
            for (String field : fields) {
                if (!seen.contains(field)) {
                    throw new ChunkSchemaException(path + field + ": missing field");
                }
            }
        }
    }
}
