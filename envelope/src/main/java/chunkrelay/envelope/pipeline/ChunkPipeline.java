package chunkrelay.envelope.pipeline;

import java.util.List;

/**
 * Where the profile chunks of accepted envelopes go (validation, translation, archive, export).
 * <p>
 * The relay calls it once per envelope, after the whole envelope has been read and validated, with every
 * profile_chunk item of it (Relay allows at most one). Returning normally means the chunks are taken and the
 * client gets 200; throwing {@link ChunkPipelineUnavailableException} means none was taken and the client gets
 * 503 and retries. A chunk that later turns out invalid is an outcome, not an HTTP error, as in Relay.
 */
public interface ChunkPipeline {

    void accept(List<ProfileChunkItem> chunks);
}
