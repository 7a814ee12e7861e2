package chunkrelay.envelope.rollups;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.bind.annotation.Bindable;

import java.time.Duration;

/**
 * The index by time and the rollups built from it, {@code relay.rollups.*}.
 *
 * @param enabled  off: this relay builds no rollups (it still indexes chunks and reads rollups others built)
 * @param delay    how long after a minute ends its rollup is built: longer than the link window, so that the
 *                 minute's chunks are derived by then
 * @param interval how often the builder looks for settled minutes and late chunks
 * @param lookback how far back a starting relay looks for minutes left without a rollup
 */
@ConfigurationProperties("relay.rollups")
public record RollupConfig(@Bindable(defaultValue = "true") boolean enabled,
                           @Bindable(defaultValue = "45s") Duration delay,
                           @Bindable(defaultValue = "10s") Duration interval,
                           @Bindable(defaultValue = "1d") Duration lookback) {
}
