package chunkrelay.chunk;

/** A dropped chunk: Relay's reason and a detail naming the field or index at fault. */
public record ChunkRejection(ChunkRejectionReason reason, String detail) {
}
