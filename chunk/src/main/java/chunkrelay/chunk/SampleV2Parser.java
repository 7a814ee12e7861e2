package chunkrelay.chunk;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import java.io.IOException;
import java.util.List;
import java.util.Map;

/**
 * Streams a Sample Format V2 payload into a {@link ParsedChunk}, checking types as Relay's serde structs
 * ({@code sample::v2::ProfileChunk} and its parts) do: required fields, JSON types, integer ranges,
 * duplicate keys, explicit nulls where an object or array is required. Unknown keys are skipped and not
 * kept. The chunk-level objects are read by {@link ChunkMetadataReader}, the {@code profile} by
 * {@link SampleV2ProfileReader}. The same reader takes the JSON of Android ART trace chunks and the metadata of
 * Perfetto chunks.
 */
final class SampleV2Parser {
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

    /** One parse: the state of the chunk being read. */
    private static final class Reader {
        private final JsonFactory factory;
        private final JsonParser p;
        private final byte[] payload;
        private final boolean android;
        private final Mode mode;

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
            JsonFields fields = new JsonFields(p, "");
            SentryUuid chunkId = null;
            SentryUuid profilerId = null;
            String platform = null;
            String release = null;
            String environment = null;
            ClientSdk clientSdk = null;
            String version = null;
            List<DebugImage> debugImages = List.of();
            Map<String, Measurement> measurements = Map.of();
            SampleV2ProfileReader profile = null;
            boolean hasSampledProfile = false;
            boolean hasChunkIdAlias = false;
            long timestampNanos = 0;
            ParsedAndroidChunk.SampledProfileText sampledProfile = null;
            String contentType = null;
            while (fields.next()) {
                String name = fields.name();
                switch (name) {
                    case "sampled_profile" -> {
                        // for V2, read only for the version dispatch, with the minimal parse's duplicate check
                        fields.known(name);
                        hasSampledProfile = p.currentToken() != JsonToken.VALUE_NULL;
                        if (mode == Mode.ANDROID_TRACE && hasSampledProfile) {
                            sampledProfile = sampledProfileText();
                        } else {
                            p.skipChildren();
                        }
                    }
                    case "timestamp" -> {
                        if (android) {
                            fields.known(name);
                            timestampNanos = JsonValues.timestampNanos(p, name);
                        } else {
                            p.skipChildren();
                        }
                    }
                    case "content_type" -> {
                        if (mode == Mode.PERFETTO_METADATA) {
                            fields.known(name);
                            contentType = JsonValues.optionalString(p, name);
                        } else {
                            p.skipChildren();
                        }
                    }
                    case "chunk_id" -> {
                        fields.known(name);
                        chunkId = uuid(name);
                    }
                    case "event_id", "profile_id" -> {
                        // only the minimal parse reads these, as aliases of chunk_id
                        hasChunkIdAlias = true;
                        p.skipChildren();
                    }
                    case "profiler_id" -> {
                        fields.known(name);
                        profilerId = uuid(name);
                    }
                    case "platform" -> {
                        fields.known(name);
                        platform = JsonValues.string(p, name);
                    }
                    case "release" -> {
                        fields.known(name);
                        release = JsonValues.optionalString(p, name);
                    }
                    case "environment" -> {
                        fields.known(name);
                        environment = JsonValues.optionalString(p, name);
                    }
                    case "client_sdk" -> {
                        fields.known(name);
                        clientSdk = ChunkMetadataReader.clientSdk(p);
                    }
                    case "version" -> {
                        fields.known(name);
                        version = MinimalChunk.version(p);
                    }
                    case "debug_meta" -> {
                        fields.known(name);
                        debugImages = ChunkMetadataReader.debugImages(p);
                    }
                    case "measurements" -> {
                        fields.known(name);
                        measurements = ChunkMetadataReader.measurements(p);
                    }
                    case "profile" -> {
                        fields.known(name);
                        if (android) {
                            p.skipChildren();
                        } else {
                            profile = new SampleV2ProfileReader(factory, p, payload);
                            profile.read();
                        }
                    }
                    default -> p.skipChildren();
                }
            }
            if (mode == Mode.PERFETTO_METADATA) {
                return new ParsedPerfettoMetadata(new ChunkFields(chunkId, profilerId, platform, release,
                        environment, clientSdk, version, debugImages, measurements), contentType,
                        fields.firstMissing("chunk_id", "profiler_id", "platform", "client_sdk"));
            }
            if (android) {
                fields.require("chunk_id", "profiler_id", "platform", "client_sdk", "release", "timestamp");
                if (release == null) {
                    throw new ChunkSchemaException("release: invalid type: null, expected a string");
                }
                return new ParsedAndroidChunk(new ChunkFields(chunkId, profilerId, platform, release, environment,
                        clientSdk, version, debugImages, measurements), timestampNanos, sampledProfile);
            }
            fields.require("chunk_id", "profiler_id", "platform", "client_sdk", "version", "profile");
            return profile.chunk(new ChunkFields(chunkId, profilerId, platform, release, environment, clientSdk,
                    version, debugImages, measurements), hasSampledProfile, hasChunkIdAlias);
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
    }
}
