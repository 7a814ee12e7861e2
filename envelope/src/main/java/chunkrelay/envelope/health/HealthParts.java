package chunkrelay.envelope.health;

import chunkrelay.storage.HealthObjects;
import chunkrelay.storage.TimeBuckets;

import java.time.LocalDate;
import java.util.Optional;
import java.util.function.BiConsumer;

/**
 * Every replica's newest part of the hours that have a minute in a range, read from the bucket: one listing per day
 * of the range and one read per replica and hour. What the health answers and the transactions' coverage read.
 */
final class HealthParts {
    private final HealthObjects objects;

    HealthParts(HealthObjects objects) {
        this.objects = objects;
    }

    /**
     * Hands {@code each} the hour (its start) and counts of every replica's newest part of each hour with a minute
     * starting in {@code [from, to)}; a part that does not decode is skipped.
     */
    void read(String projectId, long from, long to, BiConsumer<Long, HourCounts> each) {
        LocalDate last = TimeBuckets.dayOf(to - 1);
        for (LocalDate day = TimeBuckets.dayOf(from); !day.isAfter(last); day = day.plusDays(1)) {
            for (HealthObjects.Part part : objects.newestParts(projectId, day)) {
                if (minutesIn(part.hourNanos(), from, to) != 0) {
                    read(part).ifPresent(hour -> each.accept(part.hourNanos(), hour));
                }
            }
        }
    }

    /** The mask of an hour's minutes whose start lies in {@code [first, end)}. */
    static long minutesIn(long hourNanos, long first, long end) {
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
}
