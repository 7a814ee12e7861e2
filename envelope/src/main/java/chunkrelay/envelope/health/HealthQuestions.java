package chunkrelay.envelope.health;

import chunkrelay.envelope.links.LinksConfig;
import chunkrelay.storage.HealthObjects;
import chunkrelay.storage.ProjectIds;
import chunkrelay.storage.TimeBuckets;
import com.fasterxml.jackson.annotation.JsonInclude;
import jakarta.inject.Singleton;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The health of a project's SDKs over a range: this replica's counts written first, then every replica's newest
 * part of every hour the range touches read from the bucket and summed, minute by minute. A chunk counts in the minute
 * the relay received it; a range takes every minute whose start lies in {@code [minute of from, to)}, so a range
 * counts whole minutes. A profiler id named by the range's transactions is silent when no replica counted a chunk of
 * it in the range widened by {@link #silenceMargin} on both sides (any SDK's: a session's chunks and transactions may
 * name their SDK apart). The transactions no chunk of their session spans were told and counted by the replica that
 * received them ({@link TransactionCoverage}). One listing per day of the widened range and one read per replica and
 * hour ({@link HealthParts}).
 */
@Singleton
public class HealthQuestions {
    /** Distinct profiler ids one answer keeps per SDK; past it, {@code sessions} is a lower bound. */
    static final int MAX_SESSIONS_PER_ANSWER = 100_000;
    /** Past the link window, how much later (or earlier) a session's chunk may arrive than its transaction. */
    static final Duration MARGIN = Duration.ofMinutes(1);
    /** Profiler ids that sent chunks one answer keeps, all SDKs together; past it, silent sessions are capped. */
    static final int MAX_CHUNK_IDS_PER_ANSWER = 1_000_000;

    private final HealthObjects objects;
    private final HealthParts parts;
    private final HealthCounts counts;
    private final Duration silenceMargin;

    public HealthQuestions(HealthObjects objects, HealthCounts counts, LinksConfig links) {
        this.objects = objects;
        this.parts = new HealthParts(objects);
        this.counts = counts;
        this.silenceMargin = silenceMargin(links);
    }

    /**
     * How far from a transaction a chunk of its session still counts: the link window (a chunk waits that long for
     * its spans, so an SDK sends within it) plus {@link #MARGIN} for the SDK's own buffering (Python and Node send a
     * chunk every 60 s).
     */
    static Duration silenceMargin(LinksConfig links) {
        return (links.deferred() ? links.window() : Duration.ZERO).plus(MARGIN);
    }

    /** How far from a range a chunk of a session its transactions name keeps the session from being silent. */
    Duration silenceMargin() {
        return silenceMargin;
    }

    /** The projects with health counts in the bucket, this replica's written first; one listing. */
    public List<Long> projects() {
        counts.share();
        return objects.projects().stream().flatMap(folder -> ProjectIds.parse(folder).stream()).toList();
    }

    /** The answer: the range asked and one row per SDK, in order of SDK name, version and platform. */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    public record Answer(long project, String from, String to, List<SdkHealth> sdks) {
    }

    public Answer answer(long project, Instant from, Instant to) {
        counts.share();
        long first = TimeBuckets.minuteOf(TimeBuckets.nanos(from));
        long end = TimeBuckets.nanos(to);
        Map<SdkKey, Tally> tallies = new TreeMap<>(Comparator.comparing(SdkKey::sdk).thenComparing(SdkKey::version)
                .thenComparing(SdkKey::platform));
        long margin = silenceMargin.toNanos();
        ChunkIds withChunks = new ChunkIds();
        parts.read(ProjectIds.format(project), first - margin, end + margin, (hourNanos, hour) -> {
            add(hour, HealthParts.minutesIn(hourNanos, first, end), tallies);
            withChunks.add(hour, HealthParts.minutesIn(hourNanos, first - margin, end + margin));
        });
        List<SdkHealth> rows = new ArrayList<>();
        tallies.forEach((sdk, tally) -> rows.add(tally.row(sdk, withChunks)));
        return new Answer(project, from.toString(), to.toString(), rows);
    }

    /** Adds an hour's counts of the range's minutes; an SDK with none there gets no row from this hour. */
    private static void add(HourCounts hour, long minutes, Map<SdkKey, Tally> tallies) {
        for (SdkKey sdk : hour.sdks()) {
            Tally tally = null;
            for (Map.Entry<Integer, Map<String, Long>> minute : hour.counters(sdk).entrySet()) {
                if ((minutes & 1L << minute.getKey()) != 0) {
                    tally = tally != null ? tally : tallies.computeIfAbsent(sdk, s -> new Tally());
                    minute.getValue().forEach(tally::add);
                }
            }
            for (Map.Entry<String, Long> session : hour.sessions(sdk).entrySet()) {
                if ((minutes & session.getValue()) != 0) {
                    tally = tally != null ? tally : tallies.computeIfAbsent(sdk, s -> new Tally());
                    tally.session(session.getKey());
                }
            }
            for (Map.Entry<String, Map<Integer, Long>> named : hour.named(sdk).entrySet()) {
                for (Map.Entry<Integer, Long> minute : named.getValue().entrySet()) {
                    if ((minutes & 1L << minute.getKey()) != 0) {
                        tally = tally != null ? tally : tallies.computeIfAbsent(sdk, s -> new Tally());
                        tally.named(named.getKey(), minute.getValue());
                    }
                }
            }
            if (tally != null) {
                tally.sessionsCapped |= hour.sessionsCapped(sdk);
            }
        }
    }

    /** The profiler ids any SDK sent chunks of in the widened range, bounded. */
    private static final class ChunkIds {
        private final Set<String> ids = new HashSet<>();
        private boolean capped;

        void add(HourCounts hour, long minutes) {
            for (SdkKey sdk : hour.sdks()) {
                for (Map.Entry<String, Long> session : hour.sessions(sdk).entrySet()) {
                    if ((minutes & session.getValue()) != 0) {
                        if (ids.size() < MAX_CHUNK_IDS_PER_ANSWER || ids.contains(session.getKey())) {
                            ids.add(session.getKey());
                        } else {
                            capped = true;
                        }
                    }
                }
            }
        }
    }

    /** One SDK's counts summed over the parts and minutes of the range. */
    private static final class Tally {
        private long chunks;
        private long samples;
        private final Map<String, Long> rejected = new TreeMap<>();
        private final Map<String, Long> dropped = new TreeMap<>();
        private final Set<String> sessions = new HashSet<>();
        private long transactions;
        private long transactionsUncovered;
        private long linkedSamples;
        private long linkableSamples;
        private final Map<String, Long> named = new HashMap<>();
        private boolean sessionsCapped;

        void add(String counter, long amount) {
            if (counter.equals(HourCounts.CHUNKS)) {
                chunks += amount;
            } else if (counter.equals(HourCounts.SAMPLES)) {
                samples += amount;
            } else if (counter.equals(HourCounts.TRANSACTIONS)) {
                transactions += amount;
            } else if (counter.equals(HourCounts.TRANSACTIONS_UNCOVERED)) {
                transactionsUncovered += amount;
            } else if (counter.equals(HourCounts.LINKED_SAMPLES)) {
                linkedSamples += amount;
            } else if (counter.equals(HourCounts.LINKABLE_SAMPLES)) {
                linkableSamples += amount;
            } else if (counter.startsWith(HourCounts.REJECTED)) {
                rejected.merge(counter.substring(HourCounts.REJECTED.length()), amount, Long::sum);
            } else if (counter.startsWith(HourCounts.DROPPED)) {
                dropped.merge(counter.substring(HourCounts.DROPPED.length()), amount, Long::sum);
            }
        }

        void session(String profilerId) {
            if (sessions.size() < MAX_SESSIONS_PER_ANSWER || sessions.contains(profilerId)) {
                sessions.add(profilerId);
            } else {
                sessionsCapped = true;
            }
        }

        void named(String profilerId, long transactions) {
            if (named.size() < MAX_SESSIONS_PER_ANSWER || named.containsKey(profilerId)) {
                named.merge(profilerId, transactions, Long::sum);
            } else {
                sessionsCapped = true;
            }
        }

        SdkHealth row(SdkKey sdk, ChunkIds withChunks) {
            long silent = 0;
            long transactionsSilent = 0;
            for (Map.Entry<String, Long> id : named.entrySet()) {
                if (!withChunks.ids.contains(id.getKey())) {
                    silent++;
                    transactionsSilent += id.getValue();
                }
            }
            return new SdkHealth(sdk.sdk(), sdk.version(), sdk.platform(), chunks, rejected, samples, dropped,
                    sessions.size(), sessionsCapped || withChunks.capped && silent > 0, transactions, silent,
                    transactionsSilent, transactionsUncovered, linkedSamples, linkableSamples);
        }
    }
}
