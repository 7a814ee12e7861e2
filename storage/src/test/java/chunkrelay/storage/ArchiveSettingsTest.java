package chunkrelay.storage;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ArchiveSettingsTest {

    @Test
    void defaultsTargetAwsWithTheDefaultCredentialsChainAndZstd() {
        ArchiveSettings defaults = ArchiveSettings.defaults();
        assertNull(defaults.endpoint());
        assertEquals("us-east-1", defaults.region());
        assertEquals("chunk-relay", defaults.bucket());
        assertEquals("", defaults.prefix());
        assertFalse(defaults.pathStyle());
        assertNull(defaults.accessKey());
        assertTrue(defaults.createBucketIfMissing());
        assertEquals(ArchiveCompression.ZSTD, defaults.compression());
        assertEquals(Duration.ofSeconds(10), defaults.deadline());
        assertEquals(4, defaults.retryAttempts());
    }

    @Test
    void blankConfigurationValuesMeanTheDefault() {
        ArchiveSettings settings = new ArchiveSettings(null, " ", "", null, null, "", "", null, null, null, null,
                null, null, null);
        assertEquals(ArchiveSettings.defaults(), settings);
    }

    @Test
    void accessKeyAndSecretKeyGoTogether() {
        assertThrows(IllegalArgumentException.class, () -> ArchiveSettings.defaults().withCredentials("a", null));
        assertThrows(IllegalArgumentException.class, () -> ArchiveSettings.defaults().withCredentials(null, "s"));
    }

    @Test
    void compressionIsZstdOrGzip() {
        assertEquals(ArchiveCompression.GZIP, ArchiveCompression.fromName("GZIP"));
        assertEquals(ArchiveCompression.ZSTD, ArchiveCompression.fromName("zstd"));
        assertThrows(IllegalArgumentException.class, () -> ArchiveCompression.fromName("br"));
    }

    @Test
    void keyPartsCannotLeaveTheirPathSegment() {
        LocalDate day = LocalDate.of(2026, 1, 2);
        assertThrows(IllegalArgumentException.class, () -> new ArchiveKey("4/2", day, "p", "c"));
        assertThrows(IllegalArgumentException.class, () -> new ArchiveKey("42", day, "..", "c"));
        assertThrows(IllegalArgumentException.class, () -> new ArchiveKey("42", day, "p", ""));
        assertThrows(IllegalArgumentException.class, () -> new ArchiveKey("42", day, "p", "c d"));
    }

    @Test
    void theDayOfTheFirstSampleIsTakenInUtc() {
        ArchiveKey key = ArchiveKey.of("42", Instant.parse("2026-11-21T23:59:59.9Z"), "p", "c");
        assertEquals("42/2026-11-21/p/c", key.stem());
    }

    @Test
    void theSecretKeyStaysOutOfLogs() {
        ArchiveSettings settings = ArchiveSettings.defaults().withCredentials("AKIDEXAMPLE", "wJalrXUtnFEMI");
        assertTrue(settings.toString().contains("AKIDEXAMPLE"));
        assertFalse(settings.toString().contains("wJalrXUtnFEMI"));
        assertFalse(settings.describeTarget().contains("wJalrXUtnFEMI"));
    }
}
