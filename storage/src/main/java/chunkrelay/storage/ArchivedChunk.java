package chunkrelay.storage;

/**
 * A derived chunk found in the archive: its OTLP object exists (and its Sentry object, unless removed since).
 *
 * @param key             the chunk's key
 * @param otlpObjectKey   the full key of the OTLP object
 * @param sentryObjectKey the full key of the Sentry object; {@code null} only in the rare case it is missing
 *                        (see {@link ChunkArchive}), which the next archive call of the same chunk repairs
 * @param delivered       a delivery marker exists: the OTLP form reached the forwarding target
 * @param markedForReplay a replay marker exists: forwarding was skipped or failed
 * @param refused         a refusal marker exists: the forwarding target refused it for good
 */
public record ArchivedChunk(ArchiveKey key, String otlpObjectKey, String sentryObjectKey,
                            boolean delivered, boolean markedForReplay, boolean refused) {
}
