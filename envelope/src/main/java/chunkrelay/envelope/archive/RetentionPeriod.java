package chunkrelay.envelope.archive;

import io.micronaut.context.exceptions.ConfigurationException;
import io.micronaut.core.convert.ConversionService;

import java.time.Duration;

/**
 * A retention as an operator writes it: a duration ({@code 30d}, {@code 36h}) or {@code 0} for forever. Read as text
 * and parsed here because Micronaut binds a {@code 0} without a unit, or any value it cannot read, to the default,
 * and a retention that silently became 30 days would delete what was meant to be kept.
 */
public final class RetentionPeriod {
    private RetentionPeriod() {
    }

    /**
     * @throws ConfigurationException naming {@code key} when the value is no duration or is negative
     */
    public static Duration parse(String key, String value) {
        String text = value == null ? "" : value.trim();
        if (text.equals("0")) {
            return Duration.ZERO;
        }
        Duration duration = ConversionService.SHARED.convert(text, Duration.class).orElseThrow(() ->
                new ConfigurationException(key + " must be a duration such as 30d or 36h, or 0 to keep forever; got '"
                        + value + "'"));
        if (duration.isNegative()) {
            throw new ConfigurationException(key + " must not be negative, got '" + value + "'");
        }
        return duration;
    }
}
