package chunkrelay.envelope.errors;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.bind.annotation.Bindable;

import java.time.Duration;
import java.util.List;

/**
 * When a client refused with 503 should come back ({@code relay.limits.retry-after}), and the 503s that say so: a
 * full queue or memory budget, a disk below its minimum, an archive that failed a chunk or cannot be reached, an
 * exhausted heap, a pass-through request while the relay stops or every pass-through thread is busy. A refusal that
 * knows better when to come back (the rollup builder's next round, the upstream spool's outage) gives its own seconds
 * to {@link RelayError#unavailable}.
 *
 * @param retryAfter the {@code Retry-After} of those 503s
 */
@ConfigurationProperties("relay.limits")
public record RetryLater(@Bindable(defaultValue = "5s") Duration retryAfter) {

    /** The {@code Retry-After}, in whole seconds, at least one. */
    public long seconds() {
        return Math.max(1, retryAfter.toSeconds());
    }

    /** The relay cannot take the envelope now ({@link RelayError#cannotQueue}); {@code cause} may be null. */
    public RelayError cannotQueue(String cause) {
        return RelayError.cannotQueue(cause, seconds());
    }

    /** Any other request the relay cannot answer now. */
    public RelayError unavailable(String detail, String... causes) {
        return RelayError.unavailable(detail, List.of(causes), seconds());
    }
}
