package chunkrelay.envelope.pipeline;

/** The pipeline cannot take chunks now (e.g. the archive is down): the client gets 503 and may retry. */
public class ChunkPipelineUnavailableException extends RuntimeException {
    public ChunkPipelineUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }

    public ChunkPipelineUnavailableException(String message) {
        super(message);
    }
}
