package chunkrelay.envelope.health;

import chunkrelay.envelope.schedule.BackgroundWork;
import chunkrelay.envelope.schedule.ClockedSchedule;
import chunkrelay.envelope.telemetry.RelayMeter;
import chunkrelay.storage.ArchiveUnavailableException;
import chunkrelay.storage.RollupTier;
import chunkrelay.storage.TimeBuckets;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.annotation.Requires;
import io.micronaut.context.env.Environment;
import io.micronaut.context.event.ApplicationEventListener;
import io.micronaut.runtime.server.event.ServerStartupEvent;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The silent sessions of the last settled hour as gauges per SDK ({@link RelayMeter#SDK_SESSIONS_SILENT},
 * {@link RelayMeter#SDK_TRANSACTIONS_SILENT}), summed over every project with health counts in the bucket. A
 * session is silent only once every replica's counts around it are in, which no chunk path sees, so the gauges are
 * the health answer ({@link HealthQuestions}) of one hour: the newest hour that has settled ({@link TimeBuckets})
 * and whose end lies {@link HealthQuestions#silenceMargin} back. Every replica reads the same bucket and reports the
 * same fleet-wide value (read them with max, not sum, across replicas). The bucket is read once per such hour (and
 * again after a failed read); an SDK with no silent session in it reads 0. Tags bounded as {@link HealthMeters}'.
 *
 * <p>Its {@link ClockedSchedule} looks every {@link #LOOK} of the clock whether a new hour has settled; a test on a
 * test clock holds the background work, moves the clock and calls {@link #runDue}. In the server only.
 */
@Singleton
@Requires(notEnv = Environment.CLI)
public class SilentSessionMeters implements ApplicationEventListener<ServerStartupEvent> {
    private static final Logger LOG = LoggerFactory.getLogger(SilentSessionMeters.class);
    /** How often the schedule looks whether a new hour has settled. */
    static final Duration LOOK = Duration.ofMinutes(1);

    private record Silent(AtomicLong sessions, AtomicLong transactions) {
    }

    private final HealthQuestions questions;
    private final TimeBuckets buckets;
    private final MeterRegistry registry;
    private final ClockedSchedule schedule;
    private final Map<SdkLabels, Silent> gauges = new ConcurrentHashMap<>();
    private long decidedHour = Long.MIN_VALUE;

    public SilentSessionMeters(HealthQuestions questions, TimeBuckets buckets, MeterRegistry registry,
                               BackgroundWork work) {
        this.questions = questions;
        this.buckets = buckets;
        this.registry = registry;
        this.schedule = work.schedule("health-silence");
    }

    @Override
    public void onApplicationEvent(ServerStartupEvent event) {
        schedule.every(LOOK, Duration.ZERO, this::runDue);
    }

    /**
     * Sets the gauges to the last settled hour's silent sessions unless they hold that hour already; in the calling
     * thread, one call at a time.
     */
    public synchronized void runDue() {
        long hour = lastSettledHour();
        if (hour == decidedHour) {
            return;
        }
        try {
            publish(silentIn(hour));
            decidedHour = hour;
        } catch (ArchiveUnavailableException e) {
            LOG.warn("silent sessions of {} not read, tried again in {}: {}", Instant.ofEpochSecond(0, hour), LOOK,
                    e.getMessage());
        }
    }

    /** The newest hour settled by the clock whose end lies at least the silence margin back. */
    long lastSettledHour() {
        long margin = questions.silenceMargin().toNanos();
        long hour = TimeBuckets.bucketOf(RollupTier.HOUR, buckets.now());
        while (!buckets.settled(RollupTier.HOUR, hour)
                || buckets.now() < TimeBuckets.endOf(RollupTier.HOUR, hour) + margin) {
            hour -= TimeBuckets.HOUR_NANOS;
        }
        return hour;
    }

    private Map<SdkLabels, long[]> silentIn(long hour) {
        Instant from = Instant.ofEpochSecond(0, hour);
        Instant to = Instant.ofEpochSecond(0, TimeBuckets.endOf(RollupTier.HOUR, hour));
        Map<SdkLabels, long[]> silent = new HashMap<>();
        for (long project : questions.projects()) {
            for (SdkHealth row : questions.answer(project, from, to).sdks()) {
                if (row.silentSessions() > 0) {
                    SdkLabels labels = labels(row);
                    gauges.computeIfAbsent(labels, this::register);
                    long[] sum = silent.computeIfAbsent(labels, l -> new long[2]);
                    sum[0] += row.silentSessions();
                    sum[1] += row.transactionsSilent();
                }
            }
        }
        return silent;
    }

    private void publish(Map<SdkLabels, long[]> silent) {
        gauges.forEach((labels, gauge) -> {
            long[] sum = silent.getOrDefault(labels, new long[2]);
            gauge.sessions().set(sum[0]);
            gauge.transactions().set(sum[1]);
        });
    }

    private Silent register(SdkLabels labels) {
        Silent silent = new Silent(new AtomicLong(), new AtomicLong());
        RelayMeter.SDK_SESSIONS_SILENT.gauge(registry, silent.sessions(), AtomicLong::get, labels.sdk(),
                labels.version(), labels.platform());
        RelayMeter.SDK_TRANSACTIONS_SILENT.gauge(registry, silent.transactions(), AtomicLong::get, labels.sdk(),
                labels.version(), labels.platform());
        return silent;
    }

    /** The row's SDK as tags; past {@link HealthMeters#MAX_SDK_TAGS} combinations, other/other/other. */
    private SdkLabels labels(SdkHealth row) {
        SdkLabels labels = SdkLabels.of(new SdkKey(row.sdk(), row.version(), row.platform()));
        return gauges.containsKey(labels) || gauges.size() < HealthMeters.MAX_SDK_TAGS ? labels : SdkLabels.ALL_OTHER;
    }
}
