package chunkrelay.envelope.health;

import org.junit.jupiter.api.Test;

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
    }

    @Test
    void bytesOfAnotherFormatOrCutShortReadAsNothing() {
        byte[] bytes = HourCodec.encode(counts());
        assertTrue(HourCodec.decode(Arrays.copyOf(bytes, bytes.length - 1)).isEmpty());
        byte[] otherFormat = bytes.clone();
        otherFormat[3] = 2;
        assertTrue(HourCodec.decode(otherFormat).isEmpty());
        assertTrue(HourCodec.decode(Arrays.copyOf(bytes, bytes.length + 1)).isEmpty());
    }
}
