package chunkrelay.translate;

import chunkrelay.chunk.ChunkItemHeader;
import chunkrelay.chunk.ChunkOutcome;
import chunkrelay.chunk.ChunkProcessor;
import chunkrelay.chunk.ProfileChunk;
import chunkrelay.chunk.SentryUuid;
import chunkrelay.chunk.fixtures.Fixtures;
import chunkrelay.chunk.fixtures.PerfettoTraces;
import chunkrelay.chunk.fixtures.RecordedChunk;
import com.fasterxml.jackson.databind.JsonNode;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** The fixture chunks, normalised by the relay's own chunk processor. */
final class FixtureChunks {
    /** Relay's limit for one profile_chunk item. */
    private static final int MAX_CHUNK_BYTES = 50 * 1024 * 1024;
    /** Sentry's test fixtures with sample v2 chunks that Relay accepts (vroomrs' python one it rejects). */
    static final List<String> SENTRY_FIXTURES = List.of("relay/sample_v2_valid.json",
            "vroomrs/sample__v2__valid_cocoa.json", "vroomrs/sample__v2__valid_android.json");

    /** A fixture chunk: where it came from, the SDK's JSON and the normalised chunk. */
    record Normalised(String name, byte[] json, ProfileChunk chunk) {
        @Override
        public String toString() {
            return name;
        }
    }

    private FixtureChunks() {
    }

    /** Every recorded SDK chunk and every Sentry fixture Relay accepts. */
    static List<Normalised> all() {
        List<Normalised> chunks = new ArrayList<>();
        for (RecordedChunk recorded : Fixtures.sdkChunks()) {
            chunks.add(normalise(recorded.request(), recorded.payload(), header(recorded.itemHeader())));
        }
        for (String fixture : SENTRY_FIXTURES) {
            chunks.add(sentryFixture(fixture));
        }
        return chunks;
    }

    /** A Sentry test fixture, sent as an item whose header names no platform. */
    static Normalised sentryFixture(String path) {
        return normalise(path, Fixtures.bytes(path), new ChunkItemHeader(null, null));
    }

    /** An Android ART trace chunk wrapping {@code trace} as the SDK sends it. */
    static Normalised androidTraceChunk(String name, byte[] trace) {
        return normalise(name, chunkrelay.chunk.fixtures.ArtTraces.wrappedChunk(trace),
                new ChunkItemHeader("android", "application-json"));
    }

    /**
     * An Android Perfetto chunk wrapping {@code trace} as the SDK sends it (metadata, then the trace, as one compound
     * item).
     */
    static Normalised perfettoChunk(String name, byte[] trace) {
        byte[] metadata = PerfettoTraces.metadata(
                PerfettoTraces.CONTENT_TYPE).getBytes(StandardCharsets.UTF_8);
        return normalise(name, PerfettoTraces.payload(metadata, trace),
                new ChunkItemHeader("android", PerfettoTraces.CONTENT_TYPE,
                        (long) metadata.length));
    }

    /** The first profile_chunk item of a recorded request, e.g. {@code java-8.43.0/001}. */
    static Normalised sdkChunk(String request) {
        for (RecordedChunk recorded : Fixtures.sdkChunks()) {
            if (recorded.request().equals(request)) {
                return normalise(request, recorded.payload(), header(recorded.itemHeader()));
            }
        }
        throw new IllegalArgumentException("no profile_chunk in " + request);
    }

    /** A recorded request's chunk as a restarted process would send it: the same, from another profiler session. */
    static Normalised withProfilerId(String request, SentryUuid profilerId) {
        for (RecordedChunk recorded : Fixtures.sdkChunks()) {
            if (recorded.request().equals(request)) {
                String json = new String(recorded.payload(), StandardCharsets.UTF_8);
                String sent = normalise(request, recorded.payload(), header(recorded.itemHeader())).chunk()
                        .profilerId().toHex();
                String replaced = json.replace(sent, profilerId.toHex());
                if (replaced.equals(json)) {
                    throw new IllegalArgumentException(request + " does not spell its profiler id " + sent);
                }
                return normalise(request, replaced.getBytes(StandardCharsets.UTF_8), header(recorded.itemHeader()));
            }
        }
        throw new IllegalArgumentException("no profile_chunk in " + request);
    }

    private static ChunkItemHeader header(JsonNode header) {
        return new ChunkItemHeader(text(header, "platform"), text(header, "content_type"),
                header.hasNonNull("meta_length") ? header.get("meta_length").asLong() : null);
    }

    private static String text(JsonNode node, String field) {
        JsonNode value = node.get(field);
        return value == null || value.isNull() ? null : value.asText();
    }

    private static Normalised normalise(String name, byte[] payload, ChunkItemHeader header) {
        ChunkOutcome outcome = new ChunkProcessor(MAX_CHUNK_BYTES).process(payload, header);
        if (outcome instanceof ChunkOutcome.Accepted accepted) {
            return new Normalised(name, payload, accepted.chunk());
        }
        throw new AssertionError(name + " was rejected: " + ((ChunkOutcome.Rejected) outcome).rejection());
    }
}
