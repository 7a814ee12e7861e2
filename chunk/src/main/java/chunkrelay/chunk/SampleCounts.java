package chunkrelay.chunk;

import java.util.Arrays;

/**
 * The samples of an accepted chunk as it came and what normalisation dropped of them, by rule: the chunk keeps
 * {@code received - dropped()}. Chunks made from a trace (Android ART, Perfetto) drop none: their samples are made
 * by the conversion, not sent.
 */
public final class SampleCounts {
    private final int received;
    private final int[] droppedByRule;

    private SampleCounts(int received, int[] droppedByRule) {
        this.received = received;
        this.droppedByRule = droppedByRule;
    }

    /** {@code received} samples of which normalisation dropped none. */
    public static SampleCounts noneDropped(int received) {
        return new SampleCounts(received, new int[SampleDropRule.values().length]);
    }

    /** {@code received} samples of which {@code dropped} went by {@code rule}. */
    public static SampleCounts dropped(int received, SampleDropRule rule, int dropped) {
        int[] byRule = new int[SampleDropRule.values().length];
        byRule[rule.ordinal()] = dropped;
        return new SampleCounts(received, byRule);
    }

    public int received() {
        return received;
    }

    public int dropped(SampleDropRule rule) {
        return droppedByRule[rule.ordinal()];
    }

    /** Dropped by every rule together. */
    public int dropped() {
        return Arrays.stream(droppedByRule).sum();
    }

    @Override
    public String toString() {
        return "SampleCounts[received=" + received + ", dropped=" + Arrays.toString(droppedByRule) + "]";
    }
}
