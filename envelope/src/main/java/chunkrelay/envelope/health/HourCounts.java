package chunkrelay.envelope.health;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * One replica's health counts of one project and hour, per SDK: named counters per minute of the hour
 * ({@link #CHUNKS}, {@link #SAMPLES}, {@link #LINKED_SAMPLES}, {@link #LINKABLE_SAMPLES}, {@code rejected:}reason,
 * {@code dropped:}rule), and the profiler ids that sent
 * chunks with the minutes they sent them in (bit {@code m} of the mask: minute {@code m} of the hour), so that a
 * range counts distinct sessions; and the profiler ids the SDK's transactions named, with their transactions per
 * minute, so that a range tells the sessions named that sent no chunk. Each kind of id is held to
 * {@code maxSessions} per hour, past which the SDK's sessions are capped. And, for each profiler id that sent chunks,
 * the times those chunks span ({@link SessionCoverage}), so that a transaction of the session can be told covered or
 * not; a part of a format before it knows none ({@link #coverageKnown}). Not thread-safe: its owner locks it.
 */
final class HourCounts {
    static final String CHUNKS = "chunks";
    static final String SAMPLES = "samples";
    /** Transactions that named a profiler id, counted whether or not the id was kept. */
    static final String TRANSACTIONS = "transactions";
    /** Samples of the SDK's chunks linked to a span, counted when each chunk was derived. */
    static final String LINKED_SAMPLES = "linked_samples";
    /** Samples a span of their thread covers (linked or ambiguous), likewise. */
    static final String LINKABLE_SAMPLES = "linkable_samples";
    /** Transactions naming a session that sent chunks, none of which spans the transaction's time. */
    static final String TRANSACTIONS_UNCOVERED = "transactions_uncovered";
    static final String REJECTED = "rejected:";
    static final String DROPPED = "dropped:";

    private final Map<SdkKey, Map<Integer, Map<String, Long>>> counters = new HashMap<>();
    private final Map<SdkKey, Map<String, Long>> sessions = new HashMap<>();
    private final Set<SdkKey> sessionsCapped = new HashSet<>();
    private int sessionCount;
    private final Map<SdkKey, Map<String, Map<Integer, Long>>> named = new HashMap<>();
    private int namedCount;
    private final Map<String, long[]> coverage = new HashMap<>();
    private boolean coverageKnown = true;

    /** Whether the SDK has counts here. */
    boolean has(SdkKey sdk) {
        return counters.containsKey(sdk);
    }

    int sdkCount() {
        return counters.size();
    }

    int sessionCount() {
        return sessionCount;
    }

    void add(SdkKey sdk, int minute, String counter, long amount) {
        if (amount != 0) {
            counters.computeIfAbsent(sdk, s -> new TreeMap<>()).computeIfAbsent(minute, m -> new TreeMap<>())
                    .merge(counter, amount, Long::sum);
        }
    }

    /**
     * Notes a profiler id that sent in {@code minute} a chunk spanning {@code [first, last]}; past {@code maxSessions}
     * ids, notes the cap instead.
     */
    void session(SdkKey sdk, int minute, String profilerId, long first, long last, int maxSessions) {
        Map<String, Long> ids = sessions.computeIfAbsent(sdk, s -> new HashMap<>());
        Long mask = ids.get(profilerId);
        if (mask == null && sessionCount >= maxSessions) {
            sessionsCapped.add(sdk);
            return;
        }
        if (mask == null) {
            sessionCount++;
        }
        ids.put(profilerId, (mask == null ? 0L : mask) | 1L << minute);
        coverage.merge(profilerId, new long[] {first, last}, SessionCoverage::merge);
    }

    /** Adds a profiler id's intervals as read back. */
    void mergeCoverage(String profilerId, long[] intervals) {
        coverage.merge(profilerId, intervals, SessionCoverage::merge);
    }

    /** Per profiler id that sent chunks, the times they span. */
    Map<String, long[]> coverage() {
        return coverage;
    }

    /** Whether {@link #coverage} holds every session's: false for a part written before the relay kept it. */
    boolean coverageKnown() {
        return coverageKnown;
    }

    void coverageUnknown() {
        coverageKnown = false;
    }

    /** Adds the minutes of {@code mask} to a profiler id's, as read back: the writer held it to its cap. */
    void mergeSession(SdkKey sdk, String profilerId, long mask) {
        Map<String, Long> ids = sessions.computeIfAbsent(sdk, s -> new HashMap<>());
        if (!ids.containsKey(profilerId)) {
            sessionCount++;
        }
        ids.merge(profilerId, mask, (a, b) -> a | b);
    }

    /**
     * Notes transactions received in {@code minute} naming a profiler id; past {@code maxSessions} named ids, notes
     * the cap instead.
     */
    void named(SdkKey sdk, int minute, String profilerId, long transactions, int maxSessions) {
        Map<String, Map<Integer, Long>> ids = named.computeIfAbsent(sdk, s -> new HashMap<>());
        Map<Integer, Long> minutes = ids.get(profilerId);
        if (minutes == null) {
            if (namedCount >= maxSessions) {
                sessionsCapped.add(sdk);
                return;
            }
            namedCount++;
            minutes = new TreeMap<>();
            ids.put(profilerId, minutes);
        }
        minutes.merge(minute, transactions, Long::sum);
    }

    int namedCount() {
        return namedCount;
    }

    void capSessions(SdkKey sdk) {
        sessionsCapped.add(sdk);
    }

    Set<SdkKey> sdks() {
        Set<SdkKey> all = new HashSet<>(counters.keySet());
        all.addAll(sessions.keySet());
        all.addAll(named.keySet());
        all.addAll(sessionsCapped);
        return all;
    }

    /** The SDK's counters by minute of the hour, in minute order. */
    Map<Integer, Map<String, Long>> counters(SdkKey sdk) {
        return counters.getOrDefault(sdk, Map.of());
    }

    /** The SDK's profiler ids, each with its mask of minutes. */
    Map<String, Long> sessions(SdkKey sdk) {
        return sessions.getOrDefault(sdk, Map.of());
    }

    /** The profiler ids the SDK's transactions named, each with its transactions by minute of the hour. */
    Map<String, Map<Integer, Long>> named(SdkKey sdk) {
        return named.getOrDefault(sdk, Map.of());
    }

    boolean sessionsCapped(SdkKey sdk) {
        return sessionsCapped.contains(sdk);
    }
}
