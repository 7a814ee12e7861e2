package chunkrelay.envelope.health;

import chunkrelay.storage.ProjectIds;
import chunkrelay.storage.TimeBuckets;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The transactions this replica received that name a profiler session, each held until it can be told whether a
 * chunk of its session spans it: at once when a chunk this replica accepts does, else once every chunk that could
 * keep the session from being silent has had time to come and be shared (the minute of receipt, then the silence
 * margin and a share interval), when every replica's parts of those hours are read from the bucket. A transaction
 * whose session sent a chunk within the margin and none spanning it is then counted as uncovered, in the minute it
 * was received; one whose session sent none near it is silent and counted as such by the answers, not here.
 * Memory: at most {@code maxHeld} transactions, a few dozen bytes each; past it a transaction is not held and its
 * SDK's counts of that hour say they are lower bounds. Held transactions are lost when the relay stops (the
 * count is then a lower bound too). Thread-safe.
 */
final class TransactionCoverage {
    /** One transaction naming a session: when it was received, under which SDK, and its time. */
    record Held(long project, SdkKey sdk, long receivedNanos, String profilerId, long startNanos, long endNanos) {
    }

    /** Where an uncovered transaction is counted. */
    interface Uncovered {
        void count(Held transaction);
    }

    private final HealthParts parts;
    private final int maxHeld;
    private final long marginNanos;
    private final long waitNanos;
    private final Map<String, List<Held>> bySession = new HashMap<>();
    private int held;

    /**
     * @param margin how far from a transaction's minute of receipt a chunk of its session keeps the session from
     *               being silent
     * @param share  how often the replicas share their counts: a transaction waits that long past the margin
     */
    TransactionCoverage(HealthParts parts, int maxHeld, Duration margin, Duration share) {
        this.parts = parts;
        this.maxHeld = maxHeld;
        this.marginNanos = margin.toNanos();
        this.waitNanos = TimeBuckets.MINUTE_NANOS + marginNanos + share.toNanos();
    }

    /** Holds a transaction until it is told; false when {@code maxHeld} are held. */
    synchronized boolean hold(Held transaction) {
        if (held >= maxHeld) {
            return false;
        }
        bySession.computeIfAbsent(transaction.profilerId(), id -> new ArrayList<>()).add(transaction);
        held++;
        return true;
    }

    /** A chunk of a session spanning {@code [first, last]}: the session's transactions it spans are covered. */
    synchronized void covered(String profilerId, long first, long last) {
        List<Held> transactions = bySession.get(profilerId);
        if (transactions == null) {
            return;
        }
        int before = transactions.size();
        transactions.removeIf(t -> t.startNanos() <= last && t.endNanos() >= first);
        held -= before - transactions.size();
        if (transactions.isEmpty()) {
            bySession.remove(profilerId);
        }
    }

    /**
     * Tells the transactions due by {@code nowNanos}, counting the uncovered ones; the replicas' parts are read once
     * per project. A read that fails (the bucket unavailable) leaves that project's transactions held for the next
     * call and is rethrown.
     */
    void tell(long nowNanos, Uncovered uncovered) {
        Map<Long, List<Held>> due = takeDue(nowNanos);
        for (Iterator<Map.Entry<Long, List<Held>>> it = due.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<Long, List<Held>> project = it.next();
            try {
                tell(project.getKey(), project.getValue(), uncovered);
            } catch (RuntimeException e) {
                project.getValue().forEach(this::hold);
                it.forEachRemaining(rest -> rest.getValue().forEach(this::hold));
                throw e;
            }
        }
    }

    private synchronized Map<Long, List<Held>> takeDue(long nowNanos) {
        Map<Long, List<Held>> due = new HashMap<>();
        for (Iterator<List<Held>> sessions = bySession.values().iterator(); sessions.hasNext(); ) {
            List<Held> transactions = sessions.next();
            for (Iterator<Held> it = transactions.iterator(); it.hasNext(); ) {
                Held transaction = it.next();
                if (TimeBuckets.minuteOf(transaction.receivedNanos()) + waitNanos <= nowNanos) {
                    due.computeIfAbsent(transaction.project(), p -> new ArrayList<>()).add(transaction);
                    it.remove();
                    held--;
                }
            }
            if (transactions.isEmpty()) {
                sessions.remove();
            }
        }
        return due;
    }

    /** What every replica's parts say of the sessions: the minutes their chunks came in, the times they span. */
    private static final class Sessions {
        private final Map<String, List<Long>> minutes = new HashMap<>();
        private final Map<String, long[]> coverage = new HashMap<>();
        /** Sessions a part from before the relay kept their chunks' times names. */
        private final Set<String> unknown = new HashSet<>();

        void add(long hourNanos, HourCounts hour) {
            for (SdkKey sdk : hour.sdks()) {
                hour.sessions(sdk).forEach((id, mask) -> {
                    for (int minute = 0; minute < 60; minute++) {
                        if ((mask & 1L << minute) != 0) {
                            minutes.computeIfAbsent(id, i -> new ArrayList<>())
                                    .add(TimeBuckets.minuteOfHour(hourNanos, minute));
                        }
                    }
                    if (!hour.coverageKnown()) {
                        unknown.add(id);
                    }
                });
            }
            hour.coverage().forEach((id, intervals) -> coverage.merge(id, intervals, SessionCoverage::merge));
        }

        /** Whether a chunk of the session came in a minute starting in {@code [from, to)}. */
        boolean sent(String profilerId, long from, long to) {
            for (long minute : minutes.getOrDefault(profilerId, List.of())) {
                if (minute >= from && minute < to) {
                    return true;
                }
            }
            return false;
        }
    }

    private void tell(long project, List<Held> transactions, Uncovered uncovered) {
        long from = Long.MAX_VALUE;
        long to = Long.MIN_VALUE;
        for (Held transaction : transactions) {
            long minute = TimeBuckets.minuteOf(transaction.receivedNanos());
            from = Math.min(from, minute - marginNanos);
            to = Math.max(to, minute + marginNanos + 1);
        }
        Sessions sessions = new Sessions();
        parts.read(ProjectIds.format(project), from, to, sessions::add);
        for (Held transaction : transactions) {
            long minute = TimeBuckets.minuteOf(transaction.receivedNanos());
            String id = transaction.profilerId();
            // the widened range of every range holding the transaction's minute holds these minutes (the narrowest
            // ends just past the minute's start): a session that sent in them is silent in no answer counting it
            boolean sent = sessions.sent(id, minute - marginNanos, minute + marginNanos + 1);
            if (sent && !sessions.unknown.contains(id) && !SessionCoverage.covers(
                    sessions.coverage.getOrDefault(id, SessionCoverage.NONE), transaction.startNanos(),
                    transaction.endNanos())) {
                uncovered.count(transaction);
            }
        }
    }
}
