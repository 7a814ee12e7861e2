package chunkrelay.chunk;

/** The result of validating one chunk payload: a normalised chunk or a named rejection. */
public sealed interface ChunkOutcome {

    record Accepted(ProfileChunk chunk) implements ChunkOutcome {
    }

    record Rejected(ChunkRejection rejection) implements ChunkOutcome {
    }
}
