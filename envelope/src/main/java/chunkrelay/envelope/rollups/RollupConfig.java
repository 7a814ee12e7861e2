package chunkrelay.envelope.rollups;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.bind.annotation.Bindable;

import java.time.Duration;

/**
 * The index by time and the rollups built from it, {@code relay.rollups.*}.
 *
 * @param enabled      off: this relay builds no rollups (it still indexes chunks and reads rollups others built)
 * @param delay        how long after a minute ends its rollup is built: longer than the link window, so that the
 *                     minute's chunks are derived by then
 * @param interval     how often the builder looks for settled minutes and late chunks
 * @param lookback     how far back a starting relay looks for minutes left without a rollup
 * @param openMaxBytes bytes the partial rollups of the open minutes may hold (0: a fifth of the heap); beyond it
 *                     chunks are left out of them and a query reads them whole
 * @param detailRetention how long a minute's per-second detail is kept (0: as long as the minute's rollup): a range
 *                     starting or ending inside an older minute reads that minute's chunks whole
 */
@ConfigurationProperties("relay.rollups")
public record RollupConfig(@Bindable(defaultValue = "true") boolean enabled,
                           @Bindable(defaultValue = "45s") Duration delay,
                           @Bindable(defaultValue = "10s") Duration interval,
                           @Bindable(defaultValue = "1d") Duration lookback,
                           @Bindable(defaultValue = "0") long openMaxBytes,
                           @Bindable(defaultValue = "7d") Duration detailRetention) {

    /**
     * A fifth of the heap by default, 120 MiB at the shipped container's 600 MiB: 200 processes sending the recorded
     * Java chunk (20 chunks a second) held up to 100 MiB in their three open minutes, and a tenth left chunks out
     * from the second minute on (docs/performance.md, live fleet views).
     */
    public long openMaxBytesLimit() {
        return openMaxBytes > 0 ? openMaxBytes : Runtime.getRuntime().maxMemory() / 5;
    }
}
