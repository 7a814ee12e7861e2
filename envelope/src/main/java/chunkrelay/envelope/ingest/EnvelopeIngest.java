package chunkrelay.envelope.ingest;

import chunkrelay.chunk.spans.SpanItems;
import chunkrelay.envelope.auth.ChunkCategory;
import chunkrelay.envelope.auth.Dsn;
import chunkrelay.envelope.auth.ProjectRateLimiter;
import chunkrelay.envelope.auth.ProjectRegistry;
import chunkrelay.envelope.errors.RelayError;
import chunkrelay.envelope.errors.RetryLater;
import chunkrelay.envelope.links.SpanIntake;
import chunkrelay.envelope.pipeline.ChunkPeek;
import chunkrelay.envelope.pipeline.ChunkPipeline;
import chunkrelay.envelope.pipeline.ChunkPipelineUnavailableException;
import chunkrelay.envelope.pipeline.ProfileChunkItem;
import chunkrelay.envelope.telemetry.RelayMeter;
import chunkrelay.envelope.upstream.ForwardedItem;
import chunkrelay.envelope.upstream.UpstreamEnvelope;
import chunkrelay.envelope.upstream.UpstreamForwarder;

import chunkrelay.chunk.ChunkItemHeader;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.http.HttpStatus;
import jakarta.inject.Singleton;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Takes one decoded envelope from its stream: reads and validates all of it (header, auth from its {@code dsn}
 * when the request carried none, every item), keeps the profile_chunk payloads, skips and counts everything
 * else, applies Relay's limits per item type ({@link EnvelopeItemLimits}, 413) and the project's quotas
 * ({@link ProjectRateLimiter}, 429), and only then hands the chunks to the {@link ChunkPipeline} and the rest to the
 * upstream. So an envelope is either handed over whole or refused.
 */
@Singleton
public class EnvelopeIngest {
    /** Item types Relay knows; others are counted as "unknown" so client input cannot grow the metric's tags. */
    private static final Set<String> KNOWN_ITEM_TYPES = Set.of("event", "transaction", "security", "attachment",
            "form_data", "raw_security", "nel", "unreal_report", "user_report", "feedback", "session", "sessions",
            "statsd", "metric_buckets", "client_report", "profile", "replay_event", "replay_recording",
            "replay_video", "check_in", "log", "trace_metric", "span", "profile_chunk", "profile_chunk_ui",
            "integration", "otel_log", "otel_span", "otel_traces_data");

    private final RelayLimits limits;
    private final ItemLimits itemLimits;
    private final ProjectRegistry projects;
    private final ChunkPipeline pipeline;
    private final MeterRegistry meters;
    private final ChunkMemoryBudget budget;
    private final ProjectRateLimiter rateLimiter;
    private final UpstreamForwarder upstream;
    private final SpanIntake spans;
    private final RetryLater retryLater;

    public EnvelopeIngest(RelayLimits limits, ItemLimits itemLimits, ProjectRegistry projects, ChunkPipeline pipeline,
                          MeterRegistry meters, ChunkMemoryBudget budget, ProjectRateLimiter rateLimiter,
                          UpstreamForwarder upstream, SpanIntake spans, RetryLater retryLater) {
        this.limits = limits;
        this.itemLimits = itemLimits;
        this.projects = projects;
        this.pipeline = pipeline;
        this.meters = meters;
        this.budget = budget;
        this.rateLimiter = rateLimiter;
        this.upstream = upstream;
        this.spans = spans;
        this.retryLater = retryLater;
    }

    /**
     * Who sent the request, as far as the request itself says.
     *
     * @param projectId  the project id of the path
     * @param publicKey  the key from the request's auth, already authorized; null when the envelope's dsn must say
     * @param origin     the request's Origin (or Referer), normalised, or null
     * @param receivedAt when the request arrived
     */
    public record Sender(long projectId, String publicKey, String origin, Instant receivedAt, String sentryClient,
                         String userAgent, String forwardedFor) {
        public Sender(long projectId, String publicKey, String origin, Instant receivedAt) {
            this(projectId, publicKey, origin, receivedAt, null, null, null);
        }
    }

    /** Reads the envelope and hands its chunks over; returns its event id (null when it has none). */
    public String ingest(Sender sender, InputStream decoded) {
        try (ChunkMemoryBudget.Reservation reservation = budget.open();
             ChunkMemoryBudget.Reservation forwarded = budget.openForBody()) {
            return read(sender, decoded, reservation, forwarded);
        } catch (RelayError e) {
            if (e.status() == HttpStatus.BAD_REQUEST || e.status() == HttpStatus.UNAUTHORIZED) {
                // Relay reads the whole body before parsing it: a body over the limit or failing to decode
                // is refused for that, whatever its first bytes said.
                drain(decoded);
            }
            throw e;
        }
    }

    private String read(Sender sender, InputStream decoded, ChunkMemoryBudget.Reservation reservation,
                        ChunkMemoryBudget.Reservation forwarded) {
        EnvelopeReader reader = new EnvelopeReader(decoded, limits.maxHeaderBytes());
        EnvelopeHeaders headers;
        long projectId = sender.projectId();
        String publicKey = sender.publicKey();
        if (publicKey != null) {
            headers = EnvelopeHeaders.from(reader.readHeaders());
            checkAgainstRequest(headers, sender);
        } else {
            headers = headersAsAuth(reader);
            // the path names the project; an envelope dsn pointing elsewhere is refused like a request mismatch
            if (headers.dsn().projectId() != projectId) {
                throw RelayError.invalidEnvelope("project id header mismatch between envelope and request");
            }
            publicKey = headers.dsn().publicKey();
            checkOrigin(headers, sender);
            projects.authorize(projectId, publicKey);
        }

        ProfileChunkItem.EnvelopeInfo info = new ProfileChunkItem.EnvelopeInfo(headers.eventId(), headers.sentAt(),
                headers.sdkName(), headers.sdkVersion());
        List<ProfileChunkItem> chunks = new ArrayList<>();
        EnvelopeItemLimits envelopeLimits = new EnvelopeItemLimits(itemLimits, limits.maxChunkBytes());
        List<String> types = new ArrayList<>();
        List<ForwardedItem> passedOn = new ArrayList<>();
        List<SpanIntake.SpanItem> spanItems = new ArrayList<>();
        ItemHeader item;
        while ((item = reader.nextItem()) != null) {
            types.add(item.type());
            if (envelopeLimits.refused()) {
                // refused whole: the rest is read only for Relay's wire format errors, which come before a 413
                reader.skipPayload();
            } else if (item.isProfileChunk()) {
                byte[] payload = reader.readPayload(limits.maxChunkBytes(), reservation);
                if (envelopeLimits.admit(item, reader.lastPayloadSize())) {
                    chunks.add(new ProfileChunkItem(projectId, publicKey, item.type(),
                            new ChunkItemHeader(item.platform(), item.contentType(), item.metaLength()),
                            Objects.requireNonNull(payload), info, sender.receivedAt()));
                    if (upstream.forwardsProfileChunks()) {
                        passedOn.add(forwardedItem(item, payload));
                    }
                }
            } else if (upstream.enabled()) {
                byte[] payload = reader.readPayload(limits.maxEnvelopeBytes(), forwarded);
                if (envelopeLimits.admit(item, reader.lastPayloadSize())) {
                    passedOn.add(forwardedItem(item, Objects.requireNonNull(payload)));
                    if (SpanItems.carriesSpans(item.type())) {
                        spanItems.add(new SpanIntake.SpanItem(item.type(), payload));
                    }
                }
            } else if (SpanItems.carriesSpans(item.type())) {
                // read for the span index only; dropped after, as every item without an upstream
                byte[] payload = reader.readPayload(limits.maxEnvelopeBytes(), forwarded);
                if (envelopeLimits.admit(item, reader.lastPayloadSize())) {
                    spanItems.add(new SpanIntake.SpanItem(item.type(), Objects.requireNonNull(payload)));
                }
            } else {
                envelopeLimits.admit(item, reader.skipPayload());
            }
        }
        if (envelopeLimits.refused()) {
            throw RelayError.itemTooLarge(envelopeLimits.refusedType());
        }
        for (String type : types) {
            boolean chunk = type.equals("profile_chunk") || type.equals("profile_chunk_ui");
            RelayMeter.ENVELOPE_ITEMS.counter(meters, KNOWN_ITEM_TYPES.contains(type) ? type : "unknown",
                    chunk ? "pipeline" : upstream.enabled() ? "upstream" : "dropped").increment();
        }
        // spans first, so that a chunk in the same envelope links to them
        spans.take(new SpanIntake.Envelope(projectId, sender.receivedAt(), headers.sdkName(), headers.sdkVersion()),
                spanItems);
        if (!chunks.isEmpty()) {
            rateLimiter.acquire(projectId, chunks.size(), chunks.stream().mapToLong(c -> c.payload().length).sum(),
                    category(chunks.get(0)));
            try {
                pipeline.accept(List.copyOf(chunks));
            } catch (ChunkPipelineUnavailableException e) {
                throw retryLater.cannotQueue(e.getMessage());
            }
        }
        if (!passedOn.isEmpty()) {
            UpstreamEnvelope rest = new UpstreamEnvelope(projectId, publicKey, sender.sentryClient(), headers.json(),
                    passedOn, sender.receivedAt(), sender.userAgent(), sender.origin(), sender.forwardedFor());
            upstream.forward(rest, !chunks.isEmpty());
        }
        return headers.eventId();
    }

    private static ForwardedItem forwardedItem(ItemHeader item, byte[] payload) {
        return new ForwardedItem(item.type(), item.json().toString().getBytes(StandardCharsets.UTF_8), payload);
    }

    /** A chunk's rate-limit category by its platform: the item header's, else the payload's. */
    private static ChunkCategory category(ProfileChunkItem chunk) {
        String platform = chunk.header().platform();
        return ChunkCategory.ofPlatform(platform != null ? platform : ChunkPeek.of(chunk.payload()).platform());
    }

    /**
     * Without auth in the request, the envelope header must be a JSON object carrying a full dsn; Relay answers
     * 401 for anything it cannot read as such, and checks the header's other fields afterwards (400).
     */
    private static EnvelopeHeaders headersAsAuth(EnvelopeReader reader) {
        ObjectNode json;
        try {
            json = reader.readHeaders();
        } catch (RelayError e) {
            if (e.status() != HttpStatus.BAD_REQUEST || !e.detail().equals("invalid event envelope")
                    && !e.detail().equals("empty request body")) {
                throw e;
            }
            throw new RelayError(HttpStatus.UNAUTHORIZED, "bad envelope authentication header",
                    e.causes().isEmpty() ? List.of(e.detail()) : List.of(e.causes().get(e.causes().size() - 1)));
        }
        com.fasterxml.jackson.databind.JsonNode dsn = json.get("dsn");
        if (dsn == null || dsn.isNull()) {
            throw new RelayError(HttpStatus.UNAUTHORIZED, "bad envelope authentication header", "missing field `dsn`");
        }
        if (!dsn.isTextual() || Dsn.parse(dsn.textValue()).isEmpty()) {
            throw new RelayError(HttpStatus.UNAUTHORIZED, "bad envelope authentication header",
                    "invalid value for `dsn`: expected a DSN with a 32-character key and a project id");
        }
        return EnvelopeHeaders.from(json);
    }

    private static void checkAgainstRequest(EnvelopeHeaders headers, Sender sender) {
        checkOrigin(headers, sender);
        if (headers.dsn() != null) {
            if (headers.dsn().projectId() != sender.projectId()) {
                throw RelayError.invalidEnvelope("project id header mismatch between envelope and request");
            }
            if (!headers.dsn().publicKey().equals(sender.publicKey())) {
                throw RelayError.invalidEnvelope("public key header mismatch between envelope and request");
            }
        }
    }

    private static void checkOrigin(EnvelopeHeaders headers, Sender sender) {
        if (headers.origin() != null && !headers.origin().equals(sender.origin())) {
            throw RelayError.invalidEnvelope("origin header mismatch between envelope and request");
        }
    }

    private static void drain(InputStream decoded) {
        byte[] scratch = new byte[64 * 1024];
        try {
            while (decoded.read(scratch) >= 0) {
                // only the limit and decoding checks of the stream matter here
            }
        } catch (IOException e) {
            throw RelayError.invalidBody(e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
        }
    }
}
