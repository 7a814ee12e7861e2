package chunkrelay.storage;

import java.util.Map;

/**
 * A chunk in both forms for the archive tests, archived as the relay archives one ({@link #archiveIn}).
 *
 * @param sentryPayload the profile_chunk item payload as the SDK sent it
 * @param otlpPayload   the serialized {@code ExportProfilesServiceRequest}
 * @param metadata      the objects' user metadata ({@link ChunkMetadata})
 */
record ArchiveEntry(ArchiveKey key, byte[] sentryPayload, byte[] otlpPayload, Map<String, String> metadata) {

    /**
     * The Sentry form, then the OTLP form derived from it: {@link ArchiveResult#STORED} when this call derived the
     * chunk, {@link ArchiveResult#DUPLICATE} when it was derived before.
     */
    ArchiveResult archiveIn(ChunkArchive archive) {
        archive.archiveSentryForm(key, sentryPayload, metadata);
        return archive.storeDerivedOtlp(key, otlpPayload, metadata);
    }
}
