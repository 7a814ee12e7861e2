package chunkrelay.envelope.telemetry;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;

import java.util.List;
import java.util.function.ToDoubleFunction;

import static chunkrelay.envelope.telemetry.MeterTag.tag;
import static io.micrometer.core.instrument.Meter.Type.COUNTER;
import static io.micrometer.core.instrument.Meter.Type.GAUGE;
import static io.micrometer.core.instrument.Meter.Type.TIMER;

/**
 * Every meter of the relay, declared once, in the manner of the Collector's {@code mdatagen} metadata: its name,
 * kind, unit, tags and meaning, which is also its description ({@code # HELP} at {@code GET /prometheus}). Code
 * registers a meter through its constant, passing the tag values in the declared order, so no meter name is
 * written anywhere else; {@code docs/deployment.md} ("Metrics") lists the same meters, which a test checks. The
 * {@code translate} module's exporter keeps plain counters ({@code ExportCounters}) that {@code ops} binds to the
 * {@code EXPORT_*} meters here, so that module needs no meter names and no Micrometer. Timers publish Prometheus
 * histogram buckets.
 */
public enum RelayMeter {
    // envelopes
    ENVELOPES("relay.envelopes", COUNTER, "envelopes answered, by HTTP status", tag("status")),
    ENVELOPE_ITEMS("relay.envelope.items", COUNTER,
            "items of accepted envelopes, by type (unknown types as unknown) and where they went",
            tag("type"), tag("outcome", "pipeline", "upstream", "dropped")),
    ENVELOPE_RECEIVED_BYTES("relay.envelope.received.bytes", COUNTER,
            "envelope bytes read, as sent and after content decoding", tag("form", "wire", "decoded")),
    REQUEST_BODIES_INCOMPLETE("relay.request.bodies.incomplete", COUNTER,
            "request bodies cut off by the read timeout or a client that went away"),
    OUT_OF_MEMORY("relay.out.of.memory", COUNTER, "requests answered 503 because the heap ran out"),
    INTERNAL_ERRORS("relay.internal.errors", COUNTER, "requests answered 500 internal error (a bug)"),

    // chunks
    CHUNKS_ACCEPTED("relay.chunks.accepted", COUNTER, "chunks archived, by platform", tag("platform")),
    CHUNK_JSON_READS("relay.chunk.json.reads", COUNTER,
            "times a chunk's JSON was read by a parser: once per chunk received, and again when it is read back"),
    OTLP_READS("relay.otlp.reads", COUNTER,
            "times an OTLP form this relay made was parsed back from its bytes on a chunk's path, by where: to link"
                    + " a chunk that waited as bytes, to merge a derived form that came as bytes into an open minute",
            tag("where", "link", "open_minute")),
    CHUNKS_REJECTED("relay.chunks.rejected", COUNTER, "chunks refused, by Relay's reason name or internal_error",
            tag("reason")),
    CHUNKS_RATE_LIMITED("relay.chunks.rate_limited", COUNTER, "chunks refused by a quota, by rate-limit category",
            tag("category"), tag("scope", "project")),
    QUOTA_BACKEND_ERRORS("relay.quota.backend.errors", COUNTER,
            "quota checks that could not reach Redis; their chunks were accepted unchecked"),
    CHUNKS_DUPLICATES("relay.chunks.duplicates", COUNTER,
            "chunks archived moments ago and sent again: answered 200, not archived again"),
    CHUNK_STAGE("relay.chunk.stage", TIMER, "time a chunk spends in each stage of its path",
            tag("stage", "parse", "translate", "archive", "forward")),

    // ingest health per SDK
    SDK_CHUNKS_REJECTED("relay.sdk.chunks.rejected", COUNTER,
            "chunks refused, by SDK (known names, else other), its major.minor version, platform and Relay's reason"
                    + " name or internal_error",
            tag("sdk"), tag("sdk_version"), tag("platform"), tag("reason")),
    SDK_SAMPLES_DROPPED("relay.sdk.samples.dropped", COUNTER,
            "samples normalisation dropped from accepted chunks, by SDK, its major.minor version, platform and rule",
            tag("sdk"), tag("sdk_version"), tag("platform"), tag("rule", "thread_with_fewer_than_two_samples")),
    SDK_SESSIONS_SILENT("relay.sdk.sessions.silent", GAUGE,
            "profiler sessions transactions named with no chunk of theirs within the silence margin, in the last"
                    + " settled hour, over all projects, by SDK, its major.minor version and platform; every replica"
                    + " reports the same fleet-wide value (read with max, not sum)",
            tag("sdk"), tag("sdk_version"), tag("platform")),
    SDK_TRANSACTIONS_SILENT("relay.sdk.transactions.silent", GAUGE,
            "transactions naming a silent session in the last settled hour, over all projects, by SDK, its"
                    + " major.minor version and platform; every replica reports the same fleet-wide value (read with"
                    + " max, not sum)",
            tag("sdk"), tag("sdk_version"), tag("platform")),
    HEALTH_LEFT_OUT("relay.health.left.out", COUNTER,
            "chunks left out of the health counts, relay.health.max-projects project-hours being held"),

    // archive and recovery
    ARCHIVE_DUPLICATES("relay.archive.duplicates", COUNTER, "chunks the archive already held when written"),
    ARCHIVE_FAILURES("relay.archive.failures", COUNTER, "chunk writes and quarantines the archive did not take"),
    RECOVERY_SEARCHES("relay.recovery.searches", COUNTER, "searches for chunks another relay left underived"),
    RECOVERY_DELIVERY_SEARCHES("relay.recovery.delivery.searches", COUNTER,
            "listings of OTLP forms left undelivered"),
    RECOVERY_CHUNKS("relay.recovery.chunks", COUNTER, "undelivered OTLP forms the recovery pass sent, by outcome",
            tag("outcome", "delivered", "refused", "failed")),

    // retention and disk
    RETENTION_SWEEPS("relay.retention.sweeps", COUNTER, "retention sweeps, by outcome",
            tag("outcome", "swept", "failed")),
    RETENTION_DELETED_OBJECTS("relay.retention.deleted.objects", COUNTER, "objects the retention sweep deleted"),
    RETENTION_DELETED_BYTES("relay.retention.deleted.bytes", COUNTER, "bytes the retention sweep deleted"),
    ARCHIVE_PROJECT_BYTES("relay.archive.project.bytes", GAUGE, "bytes",
            "bytes the project keeps in the archive, as last swept", tag("project")),
    ARCHIVE_PROJECT_OBJECTS("relay.archive.project.objects", GAUGE,
            "objects the project keeps in the archive, as last swept", tag("project")),
    DISK_FREE("relay.disk.free", GAUGE, "bytes", "free disk under the embedded store's directory"),
    DISK_GUARD_REFUSALS("relay.disk.guard.refusals", COUNTER,
            "envelopes refused because the embedded store's disk is below its minimum"),

    // trace links and derivation
    SPANS_INDEXED("relay.spans.indexed", COUNTER, "spans put in the span index"),
    SPANS_SKIPPED("relay.spans.skipped", COUNTER, "malformed spans skipped"),
    SPANS_UNRESOLVED("relay.spans.unresolved", COUNTER, "spans with no profiler id and no segment"),
    SPAN_INDEX_SIZE("relay.span.index.size", GAUGE, "spans held in the span index"),
    SAMPLES_LINKED("relay.samples.linked", COUNTER, "samples linked to a span"),
    SAMPLES_UNLINKED("relay.samples.unlinked", COUNTER, "samples left without a span link, by why",
            tag("why", "no_span", "ambiguous")),
    CHUNKS_DERIVED("relay.chunks.derived", COUNTER, "OTLP forms derived, by when",
            tag("when", "window", "recovery", "stop")),
    DERIVATIONS_PENDING("relay.derivations.pending", GAUGE, "chunks waiting for their link window"),
    DERIVATIONS_PENDING_BYTES("relay.derivations.pending.bytes", GAUGE,
            "bytes the chunks waiting for their link window hold in memory"),
    DERIVATIONS_DUPLICATES("relay.derivations.duplicates", COUNTER, "OTLP forms another replica derived first"),
    DERIVATIONS_FAILURES("relay.derivations.failures", COUNTER, "derivations that failed"),
    DERIVATIONS_READ_BACK("relay.derivations.read.back", COUNTER,
            "waiting chunks read back from the archive beyond the pending budget"),
    SPAN_LOG_WRITES("relay.span.log.writes", COUNTER, "writes of the span log to the bucket, by outcome",
            tag("outcome", "stored", "failed")),

    // rollups
    ROLLUPS_BUILT("relay.rollups.built", COUNTER, "rollups built, by tier",
            tag("tier", "minute", "ten_minutes", "hour", "day")),
    ROLLUPS_MINUTE_CHUNKS("relay.rollups.minute.chunks", COUNTER,
            "chunks taken into minute rollups, by where their OTLP form came from",
            tag("from", "open_minute", "archive")),
    ROLLUPS_LATE_CHUNKS("relay.rollups.late.chunks", GAUGE,
            "chunks in the late queues of all projects at the builder's last round"),
    ROLLUPS_OPEN_MINUTES("relay.rollups.open.minutes", GAUGE, "minutes not settled yet with a partial rollup here"),
    ROLLUPS_OPEN_BYTES("relay.rollups.open.bytes", GAUGE,
            "estimated heap of the partial rollups of the minutes not settled yet"),
    ROLLUPS_OPEN_LEFT_OUT("relay.rollups.open.left.out", COUNTER,
            "chunks the open minutes' partials left out, their memory budget spent, by the form refused",
            tag("when", "receipt", "derived")),

    // OTLP forwarding
    EXPORT_OUTCOMES("relay.export.outcomes", COUNTER,
            "answers of the OTLP endpoint: delivered, retried, or refused for good (not sent again), by reason",
            tag("outcome", "delivered", "retried", "refused"), tag("reason")),
    EXPORT_ATTEMPTS("relay.export.attempts", COUNTER, "HTTP requests sent to the OTLP endpoint, retries included"),
    EXPORT_RETRIES("relay.export.retries", COUNTER, "HTTP requests that followed a retryable failure"),
    EXPORT_DELIVERIES("relay.export.deliveries", COUNTER, "chunks delivered to the OTLP endpoint"),
    EXPORT_PARTIAL_SUCCESSES("relay.export.partial.successes", COUNTER,
            "deliveries answered with a partial success"),
    EXPORT_REJECTED_PROFILES("relay.export.rejected.profiles", COUNTER,
            "profiles the OTLP endpoint reported as rejected"),
    EXPORT_FINAL_FAILURES("relay.export.final.failures", COUNTER,
            "chunks whose forwarding failed for good (left for replay), by last HTTP status", tag("status")),
    EXPORT_QUEUE_REJECTIONS("relay.export.queue.rejections", COUNTER,
            "chunks refused by a full forwarding queue (left for replay)"),
    EXPORT_QUEUE_DROPPED("relay.export.queue.dropped", COUNTER,
            "queued chunks abandoned at shutdown (left for replay)"),
    EXPORT_QUEUE_DEPTH("relay.export.queue.depth", GAUGE, "chunks waiting in the forwarding queue"),
    EXPORT_QUEUE_BYTES("relay.export.queue.bytes", GAUGE, "bytes", "OTLP bytes waiting in the forwarding queue"),

    // upstream
    UPSTREAM_ENVELOPES("relay.upstream.envelopes", COUNTER, "envelopes passed to the upstream, by outcome",
            tag("outcome")),
    UPSTREAM_ITEMS("relay.upstream.items", COUNTER, "items for the upstream, by type and outcome",
            tag("type"), tag("outcome", "queued", "rate_limited")),
    UPSTREAM_PASS_THROUGH_REFUSED("relay.upstream.pass_through.refused", COUNTER,
            "requests to the other Sentry endpoints refused with 503: relay.upstream.pass-through-requests all busy"),
    UPSTREAM_RETRIES("relay.upstream.retries", COUNTER,
            "envelopes sent to the upstream again, from memory or from the spool"),
    UPSTREAM_QUEUE_DEPTH("relay.upstream.queue.depth", GAUGE, "envelopes waiting in memory for the upstream"),
    UPSTREAM_QUEUE_BYTES("relay.upstream.queue.bytes", GAUGE, "bytes", "bytes waiting in memory for the upstream"),
    UPSTREAM_SPOOL_DEPTH("relay.upstream.spool.depth", GAUGE, "envelopes in the spool in the bucket, as last listed"),
    UPSTREAM_SPOOL_OLDEST_AGE("relay.upstream.spool.oldest.age", GAUGE, "seconds",
            "age of the oldest spooled envelope, as last listed");

    private final String name;
    private final Meter.Type kind;
    private final String baseUnit;
    private final String meaning;
    private final List<MeterTag> tags;

    RelayMeter(String name, Meter.Type kind, String meaning, MeterTag... tags) {
        this(name, kind, null, meaning, tags);
    }

    RelayMeter(String name, Meter.Type kind, String baseUnit, String meaning, MeterTag... tags) {
        this.name = name;
        this.kind = kind;
        this.baseUnit = baseUnit;
        this.meaning = meaning;
        this.tags = List.of(tags);
    }

    /** The meter's name as registered ({@code relay.…}). */
    public String meterName() {
        return name;
    }

    public Meter.Type kind() {
        return kind;
    }

    /** The base unit, or null for a count. */
    public String baseUnit() {
        return baseUnit;
    }

    public String meaning() {
        return meaning;
    }

    public List<MeterTag> tags() {
        return tags;
    }

    /**
     * The name of its series at {@code GET /prometheus} (Micrometer's Prometheus naming): dots as underscores, the
     * base unit appended unless the name ends with it, {@code _total} for a counter, {@code _seconds} for a timer.
     */
    public String prometheusName() {
        String prometheus = name.replace('.', '_');
        if (baseUnit != null && !prometheus.endsWith("_" + baseUnit)) {
            prometheus += "_" + baseUnit;
        }
        return switch (kind) {
            case COUNTER -> prometheus + "_total";
            case TIMER -> prometheus + "_seconds";
            default -> prometheus;
        };
    }

    /** The counter with these tag values, in the declared order; made on first use. */
    public Counter counter(MeterRegistry registry, String... tagValues) {
        return Counter.builder(name).tags(tags(COUNTER, tagValues)).description(meaning).baseUnit(baseUnit)
                .register(registry);
    }

    /** A counter that reads its count from {@code state}. */
    public <T> FunctionCounter functionCounter(MeterRegistry registry, T state, ToDoubleFunction<T> count,
                                               String... tagValues) {
        return FunctionCounter.builder(name, state, count).tags(tags(COUNTER, tagValues)).description(meaning)
                .baseUnit(baseUnit).register(registry);
    }

    /** A gauge that reads {@code state}, held weakly (as Micrometer does): its owner keeps it. */
    public <T> Gauge gauge(MeterRegistry registry, T state, ToDoubleFunction<T> value, String... tagValues) {
        return Gauge.builder(name, state, value).tags(tags(GAUGE, tagValues)).description(meaning)
                .baseUnit(baseUnit).register(registry);
    }

    /** The timer with these tag values, with its histogram buckets. */
    public Timer timer(MeterRegistry registry, String... tagValues) {
        return Timer.builder(name).tags(tags(TIMER, tagValues)).description(meaning).publishPercentileHistogram()
                .register(registry);
    }

    private Tags tags(Meter.Type asKind, String... values) {
        if (asKind != kind || values.length != tags.size()) {
            throw new IllegalArgumentException(name + " is a " + kind + " with tags " + tags + ", not a " + asKind
                    + " with " + values.length + " tag values");
        }
        Tags result = Tags.empty();
        for (int i = 0; i < values.length; i++) {
            result = result.and(tags.get(i).key(), values[i]);
        }
        return result;
    }
}
