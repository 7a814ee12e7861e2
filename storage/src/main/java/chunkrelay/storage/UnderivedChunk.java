package chunkrelay.storage;

import java.time.Instant;

/**
 * A chunk whose Sentry form is archived and whose OTLP form is not derived yet.
 *
 * @param key                where it is
 * @param sentryWrittenAt    when its Sentry object was written (the store's Last-Modified)
 */
public record UnderivedChunk(ArchiveKey key, Instant sentryWrittenAt) {
}
