package chunkrelay.envelope.archive;

import io.micronaut.context.ApplicationContext;
import io.micronaut.context.exceptions.ConfigurationException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/** Sizes and durations of the storage settings as an operator writes them, and the error for one that is not. */
class ByteSizeTest {

    @Test
    void sizesAreBytesOrCountedInUnitsOf1024() {
        assertEquals(0, ByteSize.parse("k", "0"));
        assertEquals(12345, ByteSize.parse("k", "12345"));
        assertEquals(30L << 20, ByteSize.parse("k", "30MiB"));
        assertEquals(1L << 30, ByteSize.parse("k", "1GiB"));
        assertEquals(1L << 30, ByteSize.parse("k", "1gb"));
        assertEquals(512L << 10, ByteSize.parse("k", "512 KiB"));
    }

    @Test
    void aValueThatIsNoSizeIsRefusedNamingItsKey() {
        ConfigurationException e = assertThrows(ConfigurationException.class, () -> ByteSize.parse("k.min", "lots"));
        assertTrue(e.getMessage().contains("k.min") && e.getMessage().contains("'lots'"), e.getMessage());
        assertThrows(ConfigurationException.class, () -> ByteSize.parse("k", "9999999999TiB"));
        assertThrows(ConfigurationException.class, () -> ByteSize.parse("k", "-1"));
    }

    @Test
    void theDefaultsAreAGibibyteFreeAndThirtyDaysSweptHourly() {
        // outside the test environment, whose configuration sets a minimum of its own
        try (ApplicationContext context = ApplicationContext.builder().deduceEnvironment(false)
                .properties(Map.of("relay.storage.embedded.directory", "target/test-archive/defaults")).start()) {
            assertEquals(1L << 30, context.getBean(EmbeddedStorageConfig.class).minFreeDiskBytes());
            StorageConfig storage = context.getBean(StorageConfig.class);
            assertEquals(Duration.ofDays(30), storage.retentionPeriod());
            assertEquals(Duration.ofHours(1), storage.retentionInterval());
        }
    }

    @Test
    void aRetentionOfZeroKeepsForeverAndAWrongSizeOrRetentionIsAClearError() {
        try (ApplicationContext context = ApplicationContext.run(Map.of("relay.storage.retention", "0"))) {
            assertEquals(Duration.ZERO, context.getBean(StorageConfig.class).retentionPeriod());
        }
        ConfigurationException wrong = assertThrows(ConfigurationException.class, () ->
                RetentionPeriod.parse("relay.storage.retention", "a month"));
        assertTrue(wrong.getMessage().contains("relay.storage.retention") && wrong.getMessage().contains("'a month'"),
                wrong.getMessage());
        assertThrows(ConfigurationException.class, () -> RetentionPeriod.parse("k", "-1d"));
        try (ApplicationContext context = ApplicationContext.run(Map.of("relay.storage.embedded.min-free-disk",
                "lots"))) {
            fail("started with min-free-disk: lots");
        } catch (RuntimeException e) {
            Throwable cause = e;
            while (!(cause instanceof ConfigurationException) && cause.getCause() != null) {
                cause = cause.getCause();
            }
            assertTrue(cause.getMessage().contains("relay.storage.embedded.min-free-disk"), cause.getMessage());
        }
    }
}
