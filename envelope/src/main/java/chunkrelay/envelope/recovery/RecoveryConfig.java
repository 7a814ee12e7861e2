package chunkrelay.envelope.recovery;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.bind.annotation.Bindable;

import java.time.Duration;

/**
 * The recovery pass ({@code relay.recovery}): archived chunks that no relay delivered are sent by whichever
 * replica claims them first.
 *
 * @param enabled  run the pass (only while forwarding is on)
 * @param interval pause between passes
 * @param grace    how long a chunk must have been seen undelivered before it is sent: longer than the forwarding
 *                 of the relay that archived it may take (its queue, {@code max-elapsed}, {@code drain-timeout})
 * @param lease    how long a claim keeps other replicas off a chunk; a chunk whose claimer died is sent again
 *                 after one to two leases
 * @param days     UTC days of first samples looked at back from today, today included (later days too)
 */
@ConfigurationProperties("relay.recovery")
public record RecoveryConfig(
        @Bindable(defaultValue = "true") boolean enabled,
        @Bindable(defaultValue = "1m") Duration interval,
        @Bindable(defaultValue = "5m") Duration grace,
        @Bindable(defaultValue = "10m") Duration lease,
        @Bindable(defaultValue = "2") int days) {
}
