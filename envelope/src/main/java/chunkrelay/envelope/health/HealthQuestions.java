package chunkrelay.envelope.health;

import chunkrelay.storage.HealthObjects;
import chunkrelay.storage.ProjectIds;
import chunkrelay.storage.TimeBuckets;
import com.fasterxml.jackson.annotation.JsonInclude;
import jakarta.inject.Singleton;

import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The health of a project's SDKs over a range: this replica's counts written first, then every replica's newest
 * part of every hour the range touches read from the bucket and summed, minute by minute. A chunk counts in the minute
 * the relay received it; a range takes every minute whose start lies in {@code [minute of from, to)}, so a range
 * counts whole minutes. One listing per day of the range and one read per replica and hour.
 */
@Singleton
public class HealthQuestions {
    /** Distinct profiler ids one answer keeps per SDK; past it, {@code sessions} is a lower bound. */
    static final int MAX_SESSIONS_PER_ANSWER = 100_000;

    private final HealthObjects objects;
    private final HealthCounts counts;

    public HealthQuestions(HealthObjects objects, HealthCounts counts) {
        this.objects = objects;
        this.counts = counts;
    }

    /** The answer: the range asked and one row per SDK, in order of SDK name, version and platform. */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    public record Answer(long project, String from, String to, List<SdkHealth> sdks) {
    }

    public Answer answer(long project, Instant from, Instant to) {
        counts.share();
        long first = TimeBuckets.minuteOf(TimeBuckets.nanos(from));
        long end = TimeBuckets.nanos(to);
        String projectId = ProjectIds.format(project);
        Map<SdkKey, Tally> tallies = new TreeMap<>(Comparator.comparing(SdkKey::sdk).thenComparing(SdkKey::version)
                .thenComparing(SdkKey::platform));
        LocalDate last = TimeBuckets.dayOf(end - 1);
        for (LocalDate day = TimeBuckets.dayOf(first); !day.isAfter(last); day = day.plusDays(1)) {
            for (HealthObjects.Part part : objects.newestParts(projectId, day)) {
                long minutes = minutesIn(part.hourNanos(), first, end);
                if (minutes != 0) {
                    read(part).ifPresent(hour -> add(hour, minutes, tallies));
                }
            }
        }
        List<SdkHealth> rows = new ArrayList<>();
        tallies.forEach((sdk, tally) -> rows.add(tally.row(sdk)));
        return new Answer(project, from.toString(), to.toString(), rows);
    }

    /** The mask of an hour's minutes whose start lies in {@code [first, end)}. */
    private static long minutesIn(long hourNanos, long first, long end) {
        long mask = 0;
        for (int minute = 0; minute < 60; minute++) {
            long start = TimeBuckets.minuteOfHour(hourNanos, minute);
            if (start >= first && start < end) {
                mask |= 1L << minute;
            }
        }
        return mask;
    }

    /** A part's counts; a part replaced since the listing is read as its replica's newest. */
    private Optional<HourCounts> read(HealthObjects.Part part) {
        Optional<byte[]> bytes = objects.read(part);
        if (bytes.isEmpty()) {
            bytes = objects.newestParts(part.projectId(), TimeBuckets.dayOf(part.hourNanos())).stream()
                    .filter(p -> p.replica().equals(part.replica()) && p.hourNanos() == part.hourNanos())
                    .findFirst().flatMap(objects::read);
        }
        return bytes.flatMap(HourCodec::decode);
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
            if (tally != null) {
                tally.sessionsCapped |= hour.sessionsCapped(sdk);
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
        private boolean sessionsCapped;

        void add(String counter, long amount) {
            if (counter.equals(HourCounts.CHUNKS)) {
                chunks += amount;
            } else if (counter.equals(HourCounts.SAMPLES)) {
                samples += amount;
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

        SdkHealth row(SdkKey sdk) {
            return new SdkHealth(sdk.sdk(), sdk.version(), sdk.platform(), chunks, rejected, samples, dropped,
                    sessions.size(), sessionsCapped);
        }
    }
}
