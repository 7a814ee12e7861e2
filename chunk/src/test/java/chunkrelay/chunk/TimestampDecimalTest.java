package chunkrelay.chunk;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A sample timestamp is the exact decimal the SDK wrote, in nanoseconds rounded half-even, however it is spelled: the
 * object-free reading agrees with {@link BigDecimal} on plain decimals, on the exponent form a JSON writer of doubles
 * produces, and at the edges of what it takes.
 */
class TimestampDecimalTest {
    private static final JsonFactory JSON = new JsonFactory();

    @Test
    void everySpellingOfASecondsValueReadsAsItsExactDecimalRoundedHalfEven() throws Exception {
        SplittableRandom random = new SplittableRandom(49);
        List<String> spellings = new ArrayList<>();
        for (int n = 0; n < 5_000; n++) {
            double seconds = 1.5e9 + random.nextDouble() * 5e8;
            spellings.add(Double.toString(seconds));
            spellings.add(Double.toString(seconds).replace("E", "e+"));
            spellings.add(new BigDecimal(seconds).setScale(random.nextInt(1, 19), RoundingMode.DOWN).toPlainString());
            spellings.add(Long.toString(random.nextLong(0, 9_000_000_000L)));
            spellings.add(String.format(Locale.ROOT, "%.12e", random.nextDouble() * 1e-6));
            spellings.add(String.format(Locale.ROOT, "-%.6f", random.nextDouble() * 1e3));
        }
        for (String spelling : spellings) {
            assertEquals(exact(spelling), read(spelling), spelling);
        }
    }

    @Test
    void halvesRoundToTheEvenNanosecond() throws Exception {
        assertEquals(1_724_762_625_575_655_500L, read("1724762625.5756555"));
        assertEquals(2L, read("0.0000000025"));
        assertEquals(4L, read("0.0000000035"));
        assertEquals(4L, read("35e-10"));
        assertEquals(1_795_314_530_919_881_000L, read("1.795314530919881E9"));
        assertEquals(0L, read("4e-30"));
        assertEquals(0L, read("-0.0"));
    }

    @Test
    void valuesPastTheFastReadingStillFollowTheExactRules() throws Exception {
        // 19 significant digits, a four-digit exponent, a value the double rounds up to the limit
        assertEquals(exact("1724762625.575655512345"), read("1724762625.575655512345"));
        assertEquals(exact("1724762625.5756555e0000"), read("1724762625.5756555e0000"));
        assertThrows(ChunkSchemaException.class, () -> read("9199999999.99999999"));
        assertThrows(ChunkSchemaException.class, () -> read("9.2e9"));
        assertThrows(ChunkSchemaException.class, () -> read("1e400"));
    }

    private static long exact(String spelling) {
        return new BigDecimal(spelling).movePointRight(9).setScale(0, RoundingMode.HALF_EVEN).longValueExact();
    }

    private static long read(String spelling) throws Exception {
        try (JsonParser p = JSON.createParser("[" + spelling + "]")) {
            p.nextToken();
            p.nextToken();
            return JsonValues.timestampNanos(p, ".timestamp");
        }
    }
}
