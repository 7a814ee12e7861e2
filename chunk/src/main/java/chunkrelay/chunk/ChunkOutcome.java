package chunkrelay.chunk;

/**
 * The result of validating one chunk payload: a normalised chunk, a named rejection of the client's input, or a
 * failure of the relay's own code, which is no fault of the input and must not read as one.
 */
public sealed interface ChunkOutcome {

    /** A chunk kept, with the samples it came with and those normalisation dropped, by rule. */
    record Accepted(ProfileChunk chunk, SampleCounts samples) implements ChunkOutcome {
    }

    record Rejected(ChunkRejection rejection) implements ChunkOutcome {
    }

    /** An exception no rule anticipated: a bug to fix, after which the payload can be processed again. */
    record Failed(Throwable cause) implements ChunkOutcome {
    }
}
