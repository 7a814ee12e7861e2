package chunkrelay.chunk;

/** A rule of Relay's normalisation dropped the chunk. Stackless: an expected outcome. */
final class ChunkRejectedException extends Exception {
    private final ChunkRejection rejection;

    ChunkRejectedException(ChunkRejectionReason reason, String detail) {
        super(detail, null, false, false);
        this.rejection = new ChunkRejection(reason, detail);
    }

    ChunkRejection rejection() {
        return rejection;
    }
}
