package chunkrelay.chunk;

import chunkrelay.chunk.fixtures.PerfettoTraces;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.EnumMap;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Mutated Perfetto traces (fixed seed): flipped bits, overwritten bytes, cuts, spliced and duplicated ranges of the
 * fixture traces. Whatever the bytes, the outcome is accepted or a Relay reason, never the relay's own failure.
 */
class PerfettoFuzzTest {
    private static final int ROUNDS = 3_000;

    @Test
    void mutatedTracesAreAcceptedOrRefusedWithAReasonNeverAnInternalError() {
        byte[][] seeds = {PerfettoTraces.fromTextproto(PerfettoTraces.SYNTHETIC), PerfettoTraces.upstreamComposite()};
        Random random = new Random(20_260_728L);
        Map<ChunkRejectionReason, Integer> reasons = new EnumMap<>(ChunkRejectionReason.class);
        int accepted = 0;
        for (int round = 0; round < ROUNDS; round++) {
            byte[] trace = mutate(seeds[random.nextInt(seeds.length)], random);
            ChunkOutcome outcome = PerfettoChunks.process(trace);
            if (outcome instanceof ChunkOutcome.Failed failed) {
                fail("round " + round + ": internal error on " + trace.length + " bytes", failed.cause());
            } else if (outcome instanceof ChunkOutcome.Rejected rejected) {
                reasons.merge(rejected.rejection().reason(), 1, Integer::sum);
            } else {
                accepted++;
            }
        }
        System.out.println("Perfetto fuzz: " + accepted + " accepted, rejected " + reasons);
        assertTrue(accepted > 0, "no mutation was accepted: " + reasons);
        assertTrue(reasons.containsKey(ChunkRejectionReason.INVALID_SAMPLED_PROFILE), reasons.toString());
    }

    private static byte[] mutate(byte[] seed, Random random) {
        byte[] trace = seed.clone();
        int edits = 1 + random.nextInt(4);
        for (int e = 0; e < edits && trace.length > 0; e++) {
            int at = random.nextInt(trace.length);
            switch (random.nextInt(5)) {
                case 0 -> trace[at] ^= (byte) (1 << random.nextInt(8));
                case 1 -> trace[at] = (byte) random.nextInt(256);
                case 2 -> trace = Arrays.copyOf(trace, at);
                case 3 -> {
                    int from = random.nextInt(trace.length);
                    int length = Math.min(random.nextInt(64), trace.length - from);
                    byte[] spliced = new byte[trace.length + length];
                    System.arraycopy(trace, 0, spliced, 0, at);
                    System.arraycopy(trace, from, spliced, at, length);
                    System.arraycopy(trace, at, spliced, at + length, trace.length - at);
                    trace = spliced;
                }
                default -> {
                    // a varint of 0xff bytes: lengths and ids at their extremes
                    int length = Math.min(1 + random.nextInt(10), trace.length - at);
                    Arrays.fill(trace, at, at + length, (byte) 0xff);
                }
            }
        }
        return trace;
    }
}
