package chunkrelay.envelope.health;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.bind.annotation.Bindable;

import java.time.Duration;

/**
 * The ingest health counts per SDK, {@code relay.health.*}.
 *
 * @param shareInterval how often this replica writes the counts that changed to the bucket, where the other replicas'
 *                      health answers read them (an answer of this replica writes its own first)
 * @param maxSdks       SDKs (name, version, platform) counted apart per project and hour; past it, further SDKs
 *                      of that hour are counted together as {@code other}
 * @param maxSessions   profiler ids kept per project and hour to count distinct sessions; past it, an SDK's
 *                      {@code sessions} is a lower bound and says so ({@code sessionsCapped})
 * @param maxProjects   project-hours held in memory at once; past it, the counts of chunks of further projects are
 *                      left out (and counted in {@code relay_health_left_out_total})
 * @param maxHeldTransactions transactions naming a session held until a chunk of it is known to span them or not
 *                      (a minute and a half and the link window, at most); past it, further ones are not told and
 *                      their SDK's {@code transactionsUncovered} is a lower bound ({@code sessionsCapped})
 */
@ConfigurationProperties("relay.health")
public record HealthConfig(@Bindable(defaultValue = "10s") Duration shareInterval,
                           @Bindable(defaultValue = "50") int maxSdks,
                           @Bindable(defaultValue = "10000") int maxSessions,
                           @Bindable(defaultValue = "1000") int maxProjects,
                           @Bindable(defaultValue = "100000") int maxHeldTransactions) {
}
