package chunkrelay.chunk;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;

/**
 * Reads the current token of a parser as the Rust type Relay's serde struct declares, accepting exactly
 * what serde_json accepts for it. Each method is called with the parser on the value's first token.
 */
final class JsonValues {
    /** Stands for an index that is a valid {@code usize} but past any Java array: always out of range. */
    static final int INDEX_OUT_OF_RANGE = Integer.MAX_VALUE;

    private static final BigInteger U64_MAX = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);
    /** Seconds beyond which Unix nanoseconds overflow a long. */
    private static final double MAX_SECONDS = 9.2e9;
    /**
     * Where the exact path below takes over: a second short of {@link #MAX_SECONDS}, so that a value the double
     * rounds up to it is refused as it always was.
     */
    private static final long FAST_PATH_MAX_NANOS = 9_199_999_999_000_000_000L;
    /** Powers of ten that fit a long, 10^0 to 10^18. */
    private static final long[] POWERS_OF_TEN = powersOfTen();

    private JsonValues() {
    }

    private static long[] powersOfTen() {
        long[] powers = new long[19];
        powers[0] = 1;
        for (int i = 1; i < powers.length; i++) {
            powers[i] = powers[i - 1] * 10;
        }
        return powers;
    }

    static String describe(JsonToken token) {
        if (token == null) {
            return "nothing";
        }
        return switch (token) {
            case VALUE_NULL -> "null";
            case VALUE_TRUE, VALUE_FALSE -> "a boolean";
            case VALUE_STRING -> "a string";
            case VALUE_NUMBER_INT -> "an integer";
            case VALUE_NUMBER_FLOAT -> "a floating point number";
            case START_ARRAY -> "an array";
            case START_OBJECT -> "an object";
            default -> token.asString();
        };
    }

    static ChunkSchemaException wrongType(JsonParser p, String path, String expected) {
        return new ChunkSchemaException(path + ": expected " + expected + ", found " + describe(p.currentToken()));
    }

    /** A Rust {@code String}: a JSON string, never null, and valid Unicode (no lone surrogate escapes). */
    static String string(JsonParser p, String path) throws IOException, ChunkSchemaException {
        if (p.currentToken() != JsonToken.VALUE_STRING) {
            throw wrongType(p, path, "a string");
        }
        return unicode(p.getText(), path);
    }

    /**
     * serde_json refuses a {@code \\u} escape of half a surrogate pair when it reads a Rust String;
     * Jackson would pass it on. Keys read as map keys go through here too.
     */
    static String unicode(String text, String path) throws ChunkSchemaException {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                throw new ChunkSchemaException(path + ": lone surrogate in a string escape");
            }
        }
        return text;
    }

    /** A Rust {@code Option<String>}: null or a string. */
    static String optionalString(JsonParser p, String path) throws IOException, ChunkSchemaException {
        return p.currentToken() == JsonToken.VALUE_NULL ? null : string(p, path);
    }

    static Boolean optionalBoolean(JsonParser p, String path) throws ChunkSchemaException {
        return switch (p.currentToken()) {
            case VALUE_NULL -> null;
            case VALUE_TRUE -> Boolean.TRUE;
            case VALUE_FALSE -> Boolean.FALSE;
            default -> throw wrongType(p, path, "a boolean");
        };
    }

    static void expectObject(JsonParser p, String path) throws ChunkSchemaException {
        if (p.currentToken() != JsonToken.START_OBJECT) {
            throw wrongType(p, path, "an object");
        }
    }

    static void expectArray(JsonParser p, String path) throws ChunkSchemaException {
        if (p.currentToken() != JsonToken.START_ARRAY) {
            throw wrongType(p, path, "an array");
        }
    }

    /**
     * A Rust {@code usize} used as an index: a non-negative JSON integer up to 2^64-1. Valid values that no
     * Java array can reach come back as {@link #INDEX_OUT_OF_RANGE}.
     */
    static int index(JsonParser p, String path) throws IOException, ChunkSchemaException {
        BigInteger big = unsigned(p, path, U64_MAX, "an unsigned integer");
        if (big == null) {
            long value = p.getLongValue();
            return value >= INDEX_OUT_OF_RANGE ? INDEX_OUT_OF_RANGE : (int) value;
        }
        return INDEX_OUT_OF_RANGE;
    }

    /** A Rust {@code u32}, carried in an int as its unsigned bit pattern. */
    static int u32(JsonParser p, String path) throws IOException, ChunkSchemaException {
        if (unsigned(p, path, U64_MAX, "an unsigned integer") != null || p.getLongValue() > 0xFFFF_FFFFL) {
            throw new ChunkSchemaException(path + ": " + p.getText() + " does not fit an unsigned 32-bit integer");
        }
        return (int) p.getLongValue();
    }

    static Integer optionalU32(JsonParser p, String path) throws IOException, ChunkSchemaException {
        return p.currentToken() == JsonToken.VALUE_NULL ? null : u32(p, path);
    }

    /** A Rust {@code u64}, carried in a long as its unsigned bit pattern. */
    static long u64(JsonParser p, String path) throws IOException, ChunkSchemaException {
        BigInteger big = unsigned(p, path, U64_MAX, "an unsigned integer");
        return big == null ? p.getLongValue() : big.longValue();
    }

    /**
     * Checks the token is a JSON integer in {@code [0, max]}; returns null when it fits a long (read it with
     * getLongValue), else the BigInteger. serde_json reads integers past u64 as floats, which integer
     * types refuse; a negative integer other than -0 is refused as well.
     */
    private static BigInteger unsigned(JsonParser p, String path, BigInteger max, String expected)
            throws IOException, ChunkSchemaException {
        if (p.currentToken() != JsonToken.VALUE_NUMBER_INT) {
            throw wrongType(p, path, expected);
        }
        if (p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
            BigInteger value = p.getBigIntegerValue();
            if (value.signum() < 0) {
                throw new ChunkSchemaException(path + ": " + value + " is negative, expected " + expected);
            }
            if (value.compareTo(max) > 0) {
                throw new ChunkSchemaException(path + ": " + value + " is too large, expected " + expected);
            }
            return value;
        }
        if (p.getLongValue() < 0) {
            throw new ChunkSchemaException(path + ": " + p.getLongValue() + " is negative, expected " + expected);
        }
        return null;
    }

    /** A Rust {@code f64} read by serde_json: any JSON number whose value is finite as a double. */
    static double finiteDouble(JsonParser p, String path) throws IOException, ChunkSchemaException {
        JsonToken token = p.currentToken();
        if (token != JsonToken.VALUE_NUMBER_INT && token != JsonToken.VALUE_NUMBER_FLOAT) {
            throw wrongType(p, path, "a number");
        }
        double value = p.getDoubleValue();
        if (!Double.isFinite(value)) {
            throw new ChunkSchemaException(path + ": number " + abbreviate(p.getText()) + " is out of range");
        }
        return value;
    }

    /**
     * A sample timestamp (Rust {@code FiniteF64}, seconds) as Unix nanoseconds computed from the decimal
     * text, so the digits the SDK sent are kept exactly (rounded half-even at the nanosecond).
     */
    static long timestampNanos(JsonParser p, String path) throws IOException, ChunkSchemaException {
        JsonToken token = p.currentToken();
        if (token == JsonToken.VALUE_NUMBER_FLOAT || token == JsonToken.VALUE_NUMBER_INT) {
            // a digit string of bounded exponent is always finite: no need to read it as a double first
            long nanos = decimalNanos(p.getTextCharacters(), p.getTextOffset(), p.getTextLength());
            if (nanos != Long.MIN_VALUE) {
                return nanos;
            }
        }
        double seconds = finiteDouble(p, path);
        char[] text = p.getTextCharacters();
        int offset = p.getTextOffset();
        int length = p.getTextLength();
        if (Math.abs(seconds) < 1e-10) {
            return 0;
        }
        if (Math.abs(seconds) >= MAX_SECONDS) {
            throw new ChunkSchemaException(path + ": " + abbreviate(p.getText())
                    + " seconds is outside the timestamps this relay can represent (years 1678-2261)");
        }
        // the value is bounded and the text length is bounded, so the scale is too
        return new BigDecimal(text, offset, length).movePointRight(9).setScale(0, RoundingMode.HALF_EVEN)
                .longValueExact();
    }

    /**
     * Exact decimal seconds to nanoseconds, rounded half-even, without objects: the SDKs' {@code 1710805688.1179368}
     * and the same value with an exponent, {@code 1.7108056881179368E9} (what a JSON writer of doubles produces,
     * which the BigDecimal path of {@link #timestampNanos} read about 5 ms a Java chunk slower). Returns
     * Long.MIN_VALUE for what it does not take (more than 18 significant digits, a result within a second of
     * {@link #MAX_SECONDS}, an exponent past three digits, anything not a JSON number): that path decides those.
     */
    private static long decimalNanos(char[] text, int offset, int length) {
        int i = offset;
        int end = offset + length;
        boolean negative = i < end && text[i] == '-';
        if (negative) {
            i++;
        }
        // the digits before and after the point as one integer, the point as a negative scale
        long digits = 0;
        int significant = 0;
        int integerDigits = 0;
        int fractionDigits = 0;
        boolean point = false;
        for (; i < end; i++) {
            char c = text[i];
            if (c == '.' && !point && integerDigits > 0) {
                point = true;
                continue;
            }
            if (c < '0' || c > '9') {
                break;
            }
            if (point) {
                fractionDigits++;
            } else {
                integerDigits++;
            }
            if (digits != 0 || c != '0') {
                if (++significant > 18) {
                    return Long.MIN_VALUE;
                }
                digits = digits * 10 + (c - '0');
            }
        }
        if (integerDigits == 0 || point && fractionDigits == 0) {
            return Long.MIN_VALUE;
        }
        int scale = -fractionDigits;
        if (i < end && (text[i] == 'e' || text[i] == 'E')) {
            i++;
            boolean negativeExponent = i < end && text[i] == '-';
            if (i < end && (text[i] == '-' || text[i] == '+')) {
                i++;
            }
            int exponent = 0;
            int exponentDigits = 0;
            for (; i < end && text[i] >= '0' && text[i] <= '9'; i++, exponentDigits++) {
                exponent = exponent * 10 + (text[i] - '0');
            }
            if (exponentDigits == 0 || exponentDigits > 3) {
                return Long.MIN_VALUE;
            }
            scale += negativeExponent ? -exponent : exponent;
        }
        if (i != end) {
            return Long.MIN_VALUE;
        }
        if (digits == 0) {
            return 0;
        }
        int shift = scale + 9;
        long nanos;
        if (shift >= 0) {
            if (shift > 18 || digits > FAST_PATH_MAX_NANOS / POWERS_OF_TEN[shift]) {
                return Long.MIN_VALUE;
            }
            nanos = digits * POWERS_OF_TEN[shift];
        } else if (-shift > 18) {
            // under a tenth of a nanosecond: rounds to zero
            return 0;
        } else {
            long divisor = POWERS_OF_TEN[-shift];
            nanos = digits / divisor;
            long remainder = digits % divisor;
            long half = divisor / 2;
            if (remainder > half || remainder == half && (nanos & 1) == 1) {
                nanos++;
            }
        }
        if (nanos >= FAST_PATH_MAX_NANOS) {
            return Long.MIN_VALUE;
        }
        return negative ? -nanos : nanos;
    }

    /** A Relay {@code Addr}: a string, {@code 0x}/{@code 0X} then hex digits, or decimal digits; u64. */
    static Long optionalAddress(JsonParser p, String path) throws IOException, ChunkSchemaException {
        if (p.currentToken() == JsonToken.VALUE_NULL) {
            return null;
        }
        String text = string(p, path);
        boolean hex = text.length() >= 2 && text.charAt(0) == '0' && (text.charAt(1) == 'x' || text.charAt(1) == 'X');
        String digits = hex ? text.substring(2) : text;
        Long value = parseUnsignedAscii(digits, hex ? 16 : 10);
        if (value == null) {
            throw new ChunkSchemaException(path + ": \"" + abbreviate(text) + "\" is not an address (0x-prefixed hex or decimal, 64-bit)");
        }
        return value;
    }

    /** Like Rust's {@code u64::from_str_radix}: an optional '+', then ASCII digits only, no overflow. */
    static Long parseUnsignedAscii(String digits, int radix) {
        int start = digits.startsWith("+") ? 1 : 0;
        if (start == digits.length()) {
            return null;
        }
        for (int i = start; i < digits.length(); i++) {
            char c = digits.charAt(i);
            boolean ok = (c >= '0' && c <= '9') || (radix == 16 && ((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')));
            if (!ok) {
                return null;
            }
        }
        try {
            return Long.parseUnsignedLong(digits.substring(start), radix);
        } catch (NumberFormatException overflow) {
            return null;
        }
    }

    static String abbreviate(String text) {
        return text.length() <= 64 ? text : text.substring(0, 61) + "...";
    }
}
