package chunkrelay.envelope.health;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
        counts.session(JAVA, 0, "aa", 1_000, 2_000, 10);
        counts.session(JAVA, 59, "aa", 5_000, 6_000, 10);
        // two profiler ids an hour at most, whatever the SDK
        counts.session(NODE, 17, "bb", 1_500, 2_500, 2);
        counts.session(NODE, 18, "cc", 1_500, 2_500, 2);
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
        assertTrue(read.coverageKnown());
        assertEquals(Map.of("aa", List.of(1_000L, 2_000L, 5_000L, 6_000L), "bb", List.of(1_500L, 2_500L)),
                coverage(read), "the times each kept session's chunks span; none of the id past the cap");
    }

    private static Map<String, List<Long>> coverage(HourCounts counts) {
        Map<String, List<Long>> coverage = new TreeMap<>();
        counts.coverage().forEach((id, intervals) -> coverage.put(id, Arrays.stream(intervals).boxed().toList()));
        return coverage;
    }

    @Test
    void bytesOfAnotherFormatOrCutShortReadAsNothing() {
        byte[] bytes = HourCodec.encode(counts());
        assertTrue(HourCodec.decode(Arrays.copyOf(bytes, bytes.length - 1)).isEmpty());
        byte[] otherFormat = bytes.clone();
        otherFormat[3] = 4;
        assertTrue(HourCodec.decode(otherFormat).isEmpty());
        assertTrue(HourCodec.decode(Arrays.copyOf(bytes, bytes.length + 1)).isEmpty());
    }

    @Test
    void linkedSamplesAreCountersByNameSoAPartWithoutThemReadsAsNone() {
        HourCounts linked = counts();
        linked.add(JAVA, 5, HourCounts.LINKED_SAMPLES, 700);
        linked.add(JAVA, 5, HourCounts.LINKABLE_SAMPLES, 750);
        byte[] bytes = HourCodec.encode(linked);
        assertEquals(3, ByteBuffer.wrap(bytes).getInt());
        HourCounts read = HourCodec.decode(bytes).orElseThrow();
        assertEquals(Map.of(HourCounts.LINKED_SAMPLES, 700L, HourCounts.LINKABLE_SAMPLES, 750L),
                read.counters(JAVA).get(5));
        // a part written before the link counts (no such counter) reads with none
        HourCounts before = HourCodec.decode(HourCodec.encode(counts())).orElseThrow();
        assertTrue(before.counters(JAVA).values().stream().noneMatch(minute -> minute.containsKey(
                HourCounts.LINKED_SAMPLES) || minute.containsKey(HourCounts.LINKABLE_SAMPLES)));
        assertEquals(Map.of(0, Map.of(HourCounts.CHUNKS, 3L, HourCounts.SAMPLES, 1200L),
                59, Map.of(HourCounts.REJECTED + "profiling_invalid_json", 2L)), before.counters(JAVA));
    }

    @Test
    void aPartOfTheFormatBeforeNamedIdsReadsWithNoneAndNoSessionsTimes() {
        HourCounts old = new HourCounts();
        old.add(JAVA, 0, HourCounts.CHUNKS, 3);
        old.mergeSession(JAVA, "aa", 1L);
        byte[] bytes = HourCodec.encode(old);
        // format 1 ended each SDK after its sessions, where format 2 adds the count of named ids (0 here) and
        // format 3 then the count of sessions' times (0 here)
        byte[] formatOne = Arrays.copyOf(bytes, bytes.length - 8);
        formatOne[3] = 1;
        HourCounts read = HourCodec.decode(formatOne).orElseThrow();
        assertEquals(Map.of("aa", 1L), read.sessions(JAVA));
        assertEquals(Map.of(), read.named(JAVA));
        assertFalse(read.coverageKnown());
    }

    @Test
    void aPartOfTheFormatBeforeSessionsTimesSaysItKnowsNone() {
        HourCounts old = new HourCounts();
        old.mergeSession(JAVA, "aa", 1L);
        old.named(JAVA, 3, "aa", 5, 10);
        byte[] bytes = HourCodec.encode(old);
        byte[] formatTwo = Arrays.copyOf(bytes, bytes.length - 4);
        formatTwo[3] = 2;
        HourCounts read = HourCodec.decode(formatTwo).orElseThrow();
        assertEquals(Map.of("aa", Map.of(3, 5L)), read.named(JAVA));
        assertFalse(read.coverageKnown());
        assertTrue(HourCodec.decode(bytes).orElseThrow().coverageKnown());
    }
}
