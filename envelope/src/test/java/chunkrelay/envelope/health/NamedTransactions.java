package chunkrelay.envelope.health;

import chunkrelay.chunk.spans.SpanRecord;
import chunkrelay.storage.TimeBuckets;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Transactions as the span intake hands them to the health counts, for tests that count them by profiler id. */
final class NamedTransactions {
    private NamedTransactions() {
    }

    /** For each profiler id, that many transactions naming it, each running the second before {@code receivedAt}. */
    static List<SpanRecord> naming(Map<String, Integer> transactions, Instant receivedAt) {
        long end = TimeBuckets.nanos(receivedAt);
        List<SpanRecord> records = new ArrayList<>();
        transactions.forEach((profilerId, count) -> {
            for (int i = 0; i < count; i++) {
                String spanId = String.format("%016x", records.size() + 1);
                records.add(new SpanRecord("0".repeat(31) + "1", spanId, null, spanId, true, profilerId, null,
                        end - TimeBuckets.SECOND_NANOS, end));
            }
        });
        return records;
    }

    /** A transaction of {@code profilerId} running over {@code [start, end)}. */
    static SpanRecord running(String profilerId, Instant start, Instant end) {
        return new SpanRecord("0".repeat(31) + "1", "00000000000000aa", null, "00000000000000aa", true, profilerId,
                null, TimeBuckets.nanos(start), TimeBuckets.nanos(end));
    }
}
