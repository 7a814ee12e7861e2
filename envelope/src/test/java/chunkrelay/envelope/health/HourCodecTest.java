package chunkrelay.envelope.health;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A replica's counts of an hour read back as written; bytes of another format or cut short read as nothing. */
class HourCodecTest {
    private static final SdkKey JAVA = new SdkKey("sentry.java", "8.43.0", "java");
    private static final SdkKey NODE = new SdkKey("sentry.javascript.node", "11.1.0", "node");

    private static HourCounts counts() {
        HourCounts counts = new HourCounts();
        counts.add(JAVA, 0, HourCounts.CHUNKS, 3);
        counts.add(JAVA, 0, HourCounts.SAMPLES, 1200);
        counts.add(JAVA, 59, HourCounts.REJECTED + "profiling_invalid_json", 2);
        counts.add(NODE, 17, HourCounts.DROPPED + "thread_with_fewer_than_two_samples", 4);
        counts.session(JAVA, 0, "aa", 10);
        counts.session(JAVA, 59, "aa", 10);
        // two profiler ids an hour at most, whatever the SDK
        counts.session(NODE, 17, "bb", 2);
        counts.session(NODE, 18, "cc", 2);
        counts.named(JAVA, 3, "aa", 5, 2);
        counts.named(JAVA, 4, "aa", 1, 2);
        counts.named(NODE, 3, "dd", 2, 2);
        counts.named(NODE, 3, "ee", 1, 2);
        return counts;
    }

    @Test
    void countsReadBackAsWrittenMinuteByMinuteWithEachSessionsMinutes() {
        HourCounts read = HourCodec.decode(HourCodec.encode(counts())).orElseThrow();
        assertEquals(Set.of(JAVA, NODE), read.sdks());
        assertEquals(Map.of(0, Map.of(HourCounts.CHUNKS, 3L, HourCounts.SAMPLES, 1200L),
                59, Map.of(HourCounts.REJECTED + "profiling_invalid_json", 2L)), read.counters(JAVA));
        assertEquals(Map.of("aa", 1L | 1L << 59), read.sessions(JAVA));
        assertEquals(Map.of("bb", 1L << 17), read.sessions(NODE), "past the hour's cap of two ids the third is left out");
        assertTrue(read.sessionsCapped(NODE));
        assertEquals(2, read.sessionCount());
        assertEquals(Map.of("aa", Map.of(3, 5L, 4, 1L)), read.named(JAVA));
        assertEquals(Map.of("dd", Map.of(3, 2L)), read.named(NODE), "named ids have a cap of their own");
        assertEquals(2, read.namedCount());
    }

    @Test
    void bytesOfAnotherFormatOrCutShortReadAsNothing() {
        byte[] bytes = HourCodec.encode(counts());
        assertTrue(HourCodec.decode(Arrays.copyOf(bytes, bytes.length - 1)).isEmpty());
        byte[] otherFormat = bytes.clone();
        otherFormat[3] = 3;
        assertTrue(HourCodec.decode(otherFormat).isEmpty());
        assertTrue(HourCodec.decode(Arrays.copyOf(bytes, bytes.length + 1)).isEmpty());
    }

    @Test
    void linkedSamplesAreCountersByNameSoFormatTwoCarriesThemAndAPartWithoutThemReadsAsNone() {
        HourCounts linked = counts();
        linked.add(JAVA, 5, HourCounts.LINKED_SAMPLES, 700);
        linked.add(JAVA, 5, HourCounts.LINKABLE_SAMPLES, 750);
        byte[] bytes = HourCodec.encode(linked);
        // still format 2: a replica of the version before reads the part and sums the counters it knows
        assertEquals(2, ByteBuffer.wrap(bytes).getInt());
        HourCounts read = HourCodec.decode(bytes).orElseThrow();
        assertEquals(Map.of(HourCounts.LINKED_SAMPLES, 700L, HourCounts.LINKABLE_SAMPLES, 750L),
                read.counters(JAVA).get(5));
        // a part written before the link counts (format 2, no such counter) reads with none
        HourCounts before = HourCodec.decode(HourCodec.encode(counts())).orElseThrow();
        assertTrue(before.counters(JAVA).values().stream().noneMatch(minute -> minute.containsKey(
                HourCounts.LINKED_SAMPLES) || minute.containsKey(HourCounts.LINKABLE_SAMPLES)));
        assertEquals(Map.of(0, Map.of(HourCounts.CHUNKS, 3L, HourCounts.SAMPLES, 1200L),
                59, Map.of(HourCounts.REJECTED + "profiling_invalid_json", 2L)), before.counters(JAVA));
    }

    @Test
    void aPartOfTheFormatBeforeNamedIdsReadsWithNone() {
        HourCounts old = new HourCounts();
        old.add(JAVA, 0, HourCounts.CHUNKS, 3);
        old.session(JAVA, 0, "aa", 10);
        byte[] bytes = HourCodec.encode(old);
        // format 1 ended each SDK after its sessions, where format 2 adds the count of named ids (0 here)
        byte[] formatOne = Arrays.copyOf(bytes, bytes.length - 4);
        formatOne[3] = 1;
        HourCounts read = HourCodec.decode(formatOne).orElseThrow();
        assertEquals(Map.of("aa", 1L), read.sessions(JAVA));
        assertEquals(Map.of(), read.named(JAVA));
    }
}
