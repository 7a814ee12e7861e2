package chunkrelay.storage;

/** What {@link ChunkArchive#archive} did with an entry. */
public enum ArchiveResult {
    /** This call stored the chunk: both objects now exist. */
    STORED,
    /** The chunk was already archived (by an earlier call, another thread or another relay): nothing was written. */
    DUPLICATE
}
