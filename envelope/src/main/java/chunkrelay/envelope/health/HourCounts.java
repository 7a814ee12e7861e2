package chunkrelay.envelope.health;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * One replica's health counts of one project and hour, per SDK: named counters per minute of the hour
 * ({@link #CHUNKS}, {@link #SAMPLES}, {@code rejected:}reason, {@code dropped:}rule), and the profiler ids that sent
 * chunks with the minutes they sent them in (bit {@code m} of the mask: minute {@code m} of the hour), so that a
 * range counts distinct sessions. Not thread-safe: its owner locks it.
 */
final class HourCounts {
    static final String CHUNKS = "chunks";
    static final String SAMPLES = "samples";
    static final String REJECTED = "rejected:";
    static final String DROPPED = "dropped:";

    private final Map<SdkKey, Map<Integer, Map<String, Long>>> counters = new HashMap<>();
    private final Map<SdkKey, Map<String, Long>> sessions = new HashMap<>();
    private final Set<SdkKey> sessionsCapped = new HashSet<>();
    private int sessionCount;

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

    /** Notes a profiler id that sent in {@code minute}; past {@code maxSessions} ids, notes the cap instead. */
    void session(SdkKey sdk, int minute, String profilerId, int maxSessions) {
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
    }

    /** Adds the minutes of {@code mask} to a profiler id's, as read back: the writer held it to its cap. */
    void mergeSession(SdkKey sdk, String profilerId, long mask) {
        Map<String, Long> ids = sessions.computeIfAbsent(sdk, s -> new HashMap<>());
        if (!ids.containsKey(profilerId)) {
            sessionCount++;
        }
        ids.merge(profilerId, mask, (a, b) -> a | b);
    }

    void capSessions(SdkKey sdk) {
        sessionsCapped.add(sdk);
    }

    Set<SdkKey> sdks() {
        Set<SdkKey> all = new HashSet<>(counters.keySet());
        all.addAll(sessions.keySet());
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

    boolean sessionsCapped(SdkKey sdk) {
        return sessionsCapped.contains(sdk);
    }
}
