package chunkrelay.translate.export;

import java.util.List;

/**
 * How the forwarder classes each answer of the OTLP endpoint, after the OTLP/HTTP specification's retry rules
 * (opentelemetry-proto {@code docs/specification.md}, "Retryable Response Codes": 429, 502, 503 and 504 SHOULD be
 * retried, all other 4xx and 5xx MUST NOT). A 500 is therefore refused for good at its first answer, and that is
 * what both consumers mean by it: the Collector's OTLP receiver answers 500 for a permanent error of its pipeline
 * and 503 for a passing one ({@code receiver/otlpreceiver/internal/errors/errors.go:20-23, 56} at v0.165.0), and
 * Pyroscope answers 500 to profiles it cannot convert ({@code pkg/ingester/otlp/ingest_handler.go:205-211,
 * 278-282}), which repeats on every retry. An operator re-sends such chunks with {@code replay --include-refused}
 * once the endpoint is fixed.
 *
 * <p>Each outcome is counted with a reason of bounded cardinality: the HTTP status for the usual ones,
 * {@code other} for other statuses, {@code no_response} for transport failures (refused connections, resets,
 * timeouts) and {@code unsendable} for a request that could not be sent at all. The endpoint's own message goes
 * with the chunk (its marker, logs, replay's output), not into the metric.
 */
public enum AnswerOutcome {
    /** 2xx: the request (or part) reached the endpoint. */
    DELIVERED("delivered", List.of("ok", "partial_success")),
    /** A retryable answer: retried now, or by the recovery pass or replay once the retry budget is spent. */
    RETRIED("retried", List.of("429", "502", "503", "504", "no_response")),
    /** Refused for good: never sent again automatically; the chunk gets a refused marker with the reason. */
    REFUSED("refused", List.of("400", "401", "403", "404", "405", "408", "413", "415", "500", "501", "other",
            "unsendable"));

    private final String tag;
    private final List<String> reasons;

    AnswerOutcome(String tag, List<String> reasons) {
        this.tag = tag;
        this.reasons = reasons;
    }

    /** The outcome's name as a metric tag. */
    public String tag() {
        return tag;
    }

    /** Every reason this outcome is counted under, so the meters exist from start-up. */
    public List<String> reasons() {
        return reasons;
    }

    /** Whether an HTTP status (or {@link DeliveryResult#NO_STATUS}, no answer) may be retried. */
    private static boolean retryable(int status) {
        return status == DeliveryResult.NO_STATUS || status == 429 || status == 502 || status == 503 || status == 504;
    }

    /** The outcome of an answer with this status ({@link DeliveryResult#NO_STATUS}: none came). */
    public static AnswerOutcome of(int status) {
        if (status >= 200 && status < 300) {
            return DELIVERED;
        }
        return retryable(status) ? RETRIED : REFUSED;
    }

    /** The metric reason of a non-2xx answer with this status. */
    static String reasonOf(int status) {
        if (status == DeliveryResult.NO_STATUS) {
            return "no_response";
        }
        String code = Integer.toString(status);
        return of(status).reasons.contains(code) ? code : "other";
    }
}
