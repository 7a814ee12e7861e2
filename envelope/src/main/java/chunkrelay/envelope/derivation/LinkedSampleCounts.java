package chunkrelay.envelope.derivation;

/**
 * Where the link outcome of each derived chunk is counted (the ingest health), once per chunk: by the derivation
 * that wrote its OTLP form, whichever route it took.
 */
public interface LinkedSampleCounts {
    /**
     * @param linkedSamples   samples linked to a span of their thread
     * @param linkableSamples samples a span of their thread covers: the linked ones and the ambiguous ones
     */
    void linked(long projectId, ChunkReceipt receipt, int linkedSamples, int linkableSamples);
}
