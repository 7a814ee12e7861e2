package chunkrelay.chunk;

import chunkrelay.chunk.fixtures.ArtTraces;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Mutates ART trace bytes thousands of times with a fixed seed (byte flips in the text and the records, truncation,
 * insertion, duplicated record blocks, random thread ids and actions, huge header numbers) and wraps each as the SDK
 * does: every chunk is accepted with a consistent, bounded chunk or rejected with a reason, never an exception.
 */
@Tag("slow")
class AndroidTraceFuzzTest {
    private static final int ROUNDS = 3000;
    /** What an accepted chunk may hold, whatever the trace: the replay's sample and stack budgets. */
    private static final int MAX_SAMPLES = 1 << 21;
    private static final int MAX_STACK_FRAMES = 1 << 22;

    private final ChunkProcessor processor = new ChunkProcessor(ChunkProcessor.DEFAULT_MAX_CHUNK_BYTES);

    @Test
    void everyMutatedTraceIsAcceptedOrRejectedWithAReasonAndStaysBounded() {
        byte[] real = ArtTraces.realSamplingTrace();
        List<byte[]> seeds = List.of(real,
                ArtTraces.builder().thread(7, "main").thread(8, "worker").method(0, "A", "a", "()V", "A.java")
                        .method(1, "B", "b", "(I)Z", "").enter(7, 0, 0).enter(8, 1, 10).enter(7, 1, 9_000)
                        .exit(7, 1, 20_000).exit(8, 1, 30_000).enter(8, 0, 40_000).build(),
                ArtTraces.builder().version(2).clock("wall").thread(1, "main").method(0, "A", "a", "()V", "")
                        .enter(1, 0, 5).enter(1, 0, 100_000).build());
        Random random = new Random(0xA27_7ACEL);
        Map<ChunkRejectionReason, Integer> reasons = new EnumMap<>(ChunkRejectionReason.class);
        int accepted = 0;
        for (int round = 0; round < ROUNDS; round++) {
            // the real trace is large: one round in four
            byte[] seed = seeds.get(random.nextInt(4) == 0 ? 0 : 1 + random.nextInt(seeds.size() - 1));
            byte[] trace = mutate(seed.clone(), random);
            byte[] payload = ArtTraces.wrappedChunk(trace);
            ChunkOutcome outcome;
            try {
                outcome = processor.process(payload, new ChunkItemHeader("android", null));
            } catch (Throwable t) {
                throw new AssertionError("round " + round + " threw", t);
            }
            if (outcome instanceof ChunkOutcome.Failed failed) {
                throw new AssertionError("round " + round + ": internal error", failed.cause());
            }
            if (outcome instanceof ChunkOutcome.Rejected rejected) {
                String detail = rejected.rejection().detail();
                assertFalse(detail == null || detail.isBlank(), "round " + round);
                reasons.merge(rejected.rejection().reason(), 1, Integer::sum);
            } else {
                assertBounded(((ChunkOutcome.Accepted) outcome).chunk(), round);
                accepted++;
            }
        }
        System.out.println("ART fuzz: " + ROUNDS + " traces, " + accepted + " accepted, rejected " + reasons);
        assertTrue(accepted > ROUNDS / 10, "many mutations keep the trace readable");
        assertTrue(reasons.getOrDefault(ChunkRejectionReason.INVALID_SAMPLED_PROFILE, 0) > ROUNDS / 10,
                "many break the trace");
        assertTrue(reasons.size() >= 3, "mutations reach several rules: " + reasons.keySet());
    }

    private static void assertBounded(ProfileChunk chunk, int round) {
        assertTrue(chunk.sampleCount() > 0 && chunk.sampleCount() <= MAX_SAMPLES, "round " + round);
        long frames = 0;
        for (int s = 0; s < chunk.stackCount(); s++) {
            frames += chunk.stackDepth(s);
            for (int d = 0; d < chunk.stackDepth(s); d++) {
                assertTrue(chunk.stackFrame(s, d) < chunk.frames().size(), "round " + round);
            }
        }
        assertTrue(frames <= MAX_STACK_FRAMES, "round " + round);
        for (int i = 0; i < chunk.sampleCount(); i++) {
            assertTrue(chunk.sampleStackId(i) < chunk.stackCount(), "round " + round);
            assertTrue(chunk.sampleThreadIndex(i) < chunk.threadCount(), "round " + round);
            assertTrue(i == 0 || chunk.sampleTimestampNanos(i - 1) <= chunk.sampleTimestampNanos(i), "round " + round);
        }
    }

    private static byte[] mutate(byte[] trace, Random random) {
        int mutations = 1 + random.nextInt(3);
        for (int m = 0; m < mutations; m++) {
            int binary = Math.max(0, indexOf(trace, new byte[] {'*', 'e', 'n', 'd', '\n'}) + 5);
            if (trace.length == 0 || binary >= trace.length) {
                break;
            }
            switch (random.nextInt(9)) {
                case 0 -> trace[random.nextInt(Math.min(trace.length, Math.max(1, binary)))] = (byte) random.nextInt(256);
                case 1 -> {
                    for (int i = 0; i < 1 + random.nextInt(20); i++) {
                        trace[binary + random.nextInt(Math.max(1, trace.length - binary))] ^= (byte) (1 << random.nextInt(8));
                    }
                }
                case 2 -> trace = Arrays.copyOf(trace, random.nextInt(trace.length + 1));
                case 3 -> {
                    int at = random.nextInt(trace.length + 1);
                    byte[] inserted = new byte[1 + random.nextInt(30)];
                    random.nextBytes(inserted);
                    trace = concat(Arrays.copyOf(trace, at), inserted, Arrays.copyOfRange(trace, at, trace.length));
                }
                case 4 -> {
                    // a block of records again, at the end
                    int from = binary + random.nextInt(Math.max(1, trace.length - binary));
                    int to = Math.min(trace.length, from + random.nextInt(2000));
                    trace = concat(trace, Arrays.copyOfRange(trace, from, to));
                }
                case 5 -> {
                    // random thread ids in a stretch of records (records of 14 bytes, 32-byte binary header)
                    for (int r = binary + 32 + 14 * random.nextInt(50); r + 1 < trace.length
                            && r < binary + 32 + 14 * 400; r += 14) {
                        trace[r] = (byte) random.nextInt(256);
                        trace[r + 1] = (byte) random.nextInt(256);
                    }
                }
                case 6 -> {
                    int r = binary + 32 + 14 * random.nextInt(Math.max(1, (trace.length - binary - 32) / 14)) + 2;
                    if (r < trace.length) {
                        trace[r] |= 3;
                    }
                }
                case 7 -> trace = replaceFirst(trace, "elapsed-time-usec=", "elapsed-time-usec="
                        + List.of("0", "66000001", "18446744073709551615", "18446744073709551616", "0x10", "6")
                        .get(random.nextInt(6)) + "\nnum-method-calls=");
                default -> trace = replaceFirst(trace, "*threads\n", "*threads\n" + random.nextInt(70_000) + "\t"
                        + (random.nextBoolean() ? "x" : "") + "\n");
            }
        }
        return trace;
    }

    private static byte[] replaceFirst(byte[] trace, String find, String replacement) {
        int at = indexOf(trace, find.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        if (at < 0) {
            return trace;
        }
        return concat(Arrays.copyOf(trace, at), replacement.getBytes(java.nio.charset.StandardCharsets.US_ASCII),
                Arrays.copyOfRange(trace, at + find.length(), trace.length));
    }

    private static int indexOf(byte[] data, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= data.length; i++) {
            for (int k = 0; k < needle.length; k++) {
                if (data[i + k] != needle[k]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    private static byte[] concat(byte[]... parts) {
        int length = 0;
        for (byte[] part : parts) {
            length += part.length;
        }
        byte[] out = new byte[length];
        int at = 0;
        for (byte[] part : parts) {
            System.arraycopy(part, 0, out, at, part.length);
            at += part.length;
        }
        return out;
    }
}
