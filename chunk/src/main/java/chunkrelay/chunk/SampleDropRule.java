package chunkrelay.chunk;

/** A rule of Relay's normalisation that drops samples from a chunk it keeps ({@link ChunkNormaliser}). */
public enum SampleDropRule {
    /** Every sample of a thread with fewer than 2 samples on an existing, non-empty stack. */
    THREAD_WITH_FEWER_THAN_TWO_SAMPLES("thread_with_fewer_than_two_samples");

    private final String ruleName;

    SampleDropRule(String ruleName) {
        this.ruleName = ruleName;
    }

    /** The rule's name in the health answers and the metrics. */
    public String ruleName() {
        return ruleName;
    }
}
