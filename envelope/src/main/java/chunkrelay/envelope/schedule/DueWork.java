package chunkrelay.envelope.schedule;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

/**
 * Work kept by the clock time it is due at, handed out by {@link #takeDue} once the clock has passed it: whoever
 * polls (a scheduler thread, or a test that has just moved a test clock) runs it. Thread-safe.
 */
public final class DueWork {
    private record Entry(long at, long order, Runnable work) {
    }

    private final Clock clock;
    private final PriorityQueue<Entry> entries =
            new PriorityQueue<>(Comparator.comparingLong(Entry::at).thenComparingLong(Entry::order));
    private long added;

    public DueWork(Clock clock) {
        this.clock = clock;
    }

    public synchronized void at(Instant when, Runnable work) {
        entries.add(new Entry(when.toEpochMilli(), added++, work));
    }

    public void after(Duration delay, Runnable work) {
        at(clock.instant().plus(delay), work);
    }

    /** Removes and returns the work due by now, earliest first (in the order added when due together). */
    public synchronized List<Runnable> takeDue() {
        long now = clock.millis();
        List<Runnable> due = new ArrayList<>();
        while (!entries.isEmpty() && entries.peek().at() <= now) {
            due.add(entries.poll().work());
        }
        return due;
    }

    public synchronized int size() {
        return entries.size();
    }
}
