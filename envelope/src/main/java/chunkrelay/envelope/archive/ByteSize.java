package chunkrelay.envelope.archive;

import io.micronaut.context.exceptions.ConfigurationException;

import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A size written as bytes or with a unit: {@code 1073741824}, {@code 30MiB}, {@code 1GiB}, {@code 512KB}. KB, MB and
 * GB count in 1024s as in the relay's other byte settings (Micronaut's), so {@code 1GB} and {@code 1GiB} agree.
 */
final class ByteSize {
    private static final Pattern SIZE = Pattern.compile("([0-9]{1,19})\\s*([KMGT]I?B|B)?");
    private static final Map<Character, Integer> POWERS = Map.of('K', 1, 'M', 2, 'G', 3, 'T', 4);

    private ByteSize() {
    }

    /**
     * @throws ConfigurationException naming {@code key} when the value is not a size
     */
    static long parse(String key, String value) {
        Matcher size = SIZE.matcher(value == null ? "" : value.trim().toUpperCase(Locale.ROOT));
        if (!size.matches()) {
            throw new ConfigurationException(key + " must be a number of bytes, or with a unit (KiB, MiB, GiB, TiB),"
                    + " e.g. 30MiB; got '" + value + "'");
        }
        long bytes = Long.parseLong(size.group(1));
        String unit = size.group(2);
        int power = unit == null || unit.equals("B") ? 0 : POWERS.get(unit.charAt(0));
        if (bytes > Long.MAX_VALUE >> (10 * power)) {
            throw new ConfigurationException(key + " is too large: '" + value + "'");
        }
        return bytes << (10 * power);
    }
}
