package chunkrelay.chunk;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static chunkrelay.chunk.ChunkFixturesTest.accepted;
import static chunkrelay.chunk.ChunkFixturesTest.rejected;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** Relay's own unit cases for {@code ProfileData::normalize} (relay-profiling sample/v2.rs), and what each step keeps. */
class ChunkNormalisationTest {
    private static final ChunkItemHeader NO_HEADER = new ChunkItemHeader(null, null);
    private final ChunkProcessor processor = new ChunkProcessor(ChunkProcessor.DEFAULT_MAX_CHUNK_BYTES);

    /** A chunk with one frame, the given stacks, and samples given as (stack id, thread id, timestamp). */
    private static ObjectNode chunk(String platform, int[][] stacks, Object[]... samples) {
        ObjectNode root = TestChunks.valid();
        root.put("platform", platform);
        ObjectNode profile = TestChunks.profile(root);
        profile.putArray("frames").addObject().put("function", "f");
        ArrayNode stackArray = profile.putArray("stacks");
        for (int[] stack : stacks) {
            ArrayNode s = stackArray.addArray();
            for (int frame : stack) {
                s.add(frame);
            }
        }
        ArrayNode sampleArray = profile.putArray("samples");
        for (Object[] sample : samples) {
            sampleArray.addObject().put("stack_id", (Integer) sample[0]).put("thread_id", (String) sample[1])
                    .put("timestamp", (Double) sample[2]);
        }
        return root;
    }

    private ChunkOutcome process(ObjectNode root) {
        return processor.process(TestChunks.bytes(root), NO_HEADER);
    }

    @Test
    void reportsTheSamplesItReceivedAndThoseEachRuleDroppedWithoutChangingWhatItKeeps() {
        // thread 1: three samples; thread 2: one sample on a stack; thread 3: one on a stack and one on the empty
        // stack, so one useful sample: threads 2 and 3 lose their 3 samples to the rule
        ObjectNode root = chunk("python", new int[][] {{0}, {}},
                new Object[] {0, "1", 10.0}, new Object[] {0, "2", 10.1}, new Object[] {0, "1", 10.2},
                new Object[] {0, "3", 10.3}, new Object[] {1, "3", 10.4}, new Object[] {0, "1", 10.5});
        ChunkOutcome.Accepted outcome = (ChunkOutcome.Accepted) process(root);
        assertEquals(6, outcome.samples().received());
        assertEquals(3, outcome.samples().dropped(SampleDropRule.THREAD_WITH_FEWER_THAN_TWO_SAMPLES));
        assertEquals(3, outcome.samples().dropped());
        assertEquals(3, outcome.chunk().sampleCount());
        assertEquals(1, outcome.chunk().threadCount());
    }

    @Test
    void aChunkWhoseEveryThreadHasTwoSamplesReportsNoDrop() {
        ChunkOutcome.Accepted outcome = (ChunkOutcome.Accepted) process(chunk("python", new int[][] {{0}},
                new Object[] {0, "1", 10.0}, new Object[] {0, "1", 10.5}));
        assertEquals(2, outcome.samples().received());
        assertEquals(0, outcome.samples().dropped());
    }

    @Test
    void numbersThreadsInOrderOfFirstSampleBeyondTheIdsComparedInPlace() {
        // 40 threads, more than the parser compares in place, their samples interleaved in two rounds
        List<Object[]> samples = new ArrayList<>();
        for (int round = 0; round < 2; round++) {
            for (int t = 0; t < 40; t++) {
                samples.add(new Object[] {0, Integer.toString(1000 - t), 10.0 + round + t / 100.0});
            }
        }
        ProfileChunk chunk = accepted(process(chunk("python", new int[][] {{0}}, samples.toArray(Object[][]::new))));
        assertEquals(40, chunk.threadCount());
        for (int t = 0; t < 40; t++) {
            assertEquals(Integer.toString(1000 - t), chunk.threadId(t));
        }
        for (int s = 0; s < chunk.sampleCount(); s++) {
            assertEquals(s % 40, chunk.sampleThreadIndex(s));
        }
    }

    @Test
    void interleavedThreadIdsThatAreEscapedInTheInputOrPrefixesOfOneAnotherKeepTheirOwnThreads() {
        // the parser compares known ids with the input's bytes: an escaped id's bytes differ from it, and "1" is
        // the start of "10"
        List<String> ids = List.of("1", "a\"b", "10", "c\\d", "1");
        List<Object[]> samples = new ArrayList<>();
        for (int round = 0; round < 3; round++) {
            for (int t = 0; t < ids.size(); t++) {
                samples.add(new Object[] {0, ids.get(t), 10.0 + round + t / 100.0});
            }
        }
        ProfileChunk chunk = accepted(process(chunk("python", new int[][] {{0}}, samples.toArray(Object[][]::new))));
        assertEquals(4, chunk.threadCount());
        assertEquals(List.of("1", "a\"b", "10", "c\\d"), List.of(chunk.threadId(0), chunk.threadId(1),
                chunk.threadId(2), chunk.threadId(3)));
        int[] expected = {0, 1, 2, 3, 0};
        for (int s = 0; s < chunk.sampleCount(); s++) {
            assertEquals(expected[s % ids.size()], chunk.sampleThreadIndex(s), "sample " + s);
        }
    }

    @Test
    void keepsOnlyTheThreadWithTwoSamplesOnNonEmptyStacksAsRelaysSingleSampleTest() {
        // test_single_samples_are_removed: stack 1 is empty, so threads 1 and 2 have one useful sample each
        ObjectNode root = chunk("python", new int[][] {{0}, {}},
                new Object[] {1, "1", 60.0}, new Object[] {1, "1", 60.0}, new Object[] {0, "1", 60.0},
                new Object[] {1, "1", 60.0}, new Object[] {0, "2", 30.0}, new Object[] {1, "2", 60.0},
                new Object[] {1, "2", 60.0}, new Object[] {0, "3", 30.0}, new Object[] {0, "3", 30.0},
                new Object[] {1, "3", 60.0}, new Object[] {1, "3", 60.0});
        ProfileChunk chunk = accepted(process(root));
        assertEquals(4, chunk.sampleCount());
        assertEquals(1, chunk.threadCount());
        assertEquals("3", chunk.threadId(0));
        int[] expectedStacks = {0, 0, 1, 1};
        for (int i = 0; i < 4; i++) {
            assertEquals(expectedStacks[i], chunk.sampleStackId(i));
            assertEquals(0, chunk.sampleThreadIndex(i));
        }
    }

    @ParameterizedTest(name = "{0}: {1} s then {2} s")
    @CsvSource({
        "not above max duration, 30.0, 60.0, false",
        "above max duration, 10.0, 80.0, true",
        "unsorted samples not above max duration, 50.0, 20.0, false",
        "exactly 66 s, 1710805688.0, 1710805754.0, false",
        "66 s and one microsecond, 1710805688.0, 1710805754.000001, true",
        "more than 292 years apart so the nanosecond difference overflows, -9.1e9, 9.1e9, true",
    })
    void appliesRelaysDurationLimitWithAStrictComparison(String name, double first, double second, boolean tooLong) {
        ChunkOutcome outcome = process(chunk("python", new int[][] {{0}},
                new Object[] {0, "1", first}, new Object[] {0, "1", second}));
        if (tooLong) {
            assertEquals(ChunkRejectionReason.DURATION_IS_TOO_LONG, rejected(outcome).reason(), name);
        } else {
            accepted(outcome);
        }
    }

    @Test
    void sortsSamplesByTimestampAsRelaysSortTest() {
        ProfileChunk chunk = accepted(process(chunk("python", new int[][] {{0}},
                new Object[] {0, "1", 60.0}, new Object[] {0, "1", 30.0})));
        assertEquals(30_000_000_000L, chunk.sampleTimestampNanos(0));
        assertEquals(60_000_000_000L, chunk.sampleTimestampNanos(1));
    }

    @Test
    void keepsPayloadOrderOfSamplesWithEqualTimestamps() {
        ProfileChunk chunk = accepted(process(chunk("python", new int[][] {{0}, {0}, {0}, {0}},
                new Object[] {3, "1", 5.0}, new Object[] {2, "2", 1.0}, new Object[] {1, "1", 5.0},
                new Object[] {0, "2", 1.0}, new Object[] {2, "1", 3.0})));
        List<Integer> stackOrder = new ArrayList<>();
        for (int i = 0; i < chunk.sampleCount(); i++) {
            stackOrder.add(chunk.sampleStackId(i));
        }
        assertEquals(List.of(2, 0, 2, 3, 1), stackOrder);
        assertEquals("2", chunk.threadId(chunk.sampleThreadIndex(0)));
        assertEquals("1", chunk.threadId(chunk.sampleThreadIndex(4)));
    }

    @Test
    void sortsThousandsOfInterleavedSamplesStably() {
        Object[][] samples = new Object[5000][];
        for (int i = 0; i < samples.length; i++) {
            // timestamps repeat in blocks; the stack id records the payload position within a timestamp
            samples[i] = new Object[] {i / 50 % 2, i % 2 == 0 ? "a" : "b", (double) (7919L * i % 50)};
        }
        ProfileChunk chunk = accepted(process(chunk("python", new int[][] {{0}, {0}}, samples)));
        assertEquals(5000, chunk.sampleCount());
        for (int i = 1; i < chunk.sampleCount(); i++) {
            assertEquals(true, chunk.sampleTimestampNanos(i - 1) <= chunk.sampleTimestampNanos(i), "order at " + i);
        }
    }

    @Test
    void keepsTimestampsExactlyAsTheSdkWroteThemInDecimal() {
        String text = new String(TestChunks.bytes(chunk("python", new int[][] {{0}},
                new Object[] {0, "1", 1.0}, new Object[] {0, "1", 2.0}, new Object[] {0, "1", 3.0},
                new Object[] {0, "1", 4.0})), StandardCharsets.UTF_8)
                .replace("\"timestamp\":1.0", "\"timestamp\":1724762625.5756555")
                .replace("\"timestamp\":2.0", "\"timestamp\":1724762625.575656")
                .replace("\"timestamp\":3.0", "\"timestamp\":17247626256e-1")
                .replace("\"timestamp\":4.0", "\"timestamp\":1724762630");
        ProfileChunk chunk = accepted(processor.process(text.getBytes(StandardCharsets.UTF_8), NO_HEADER));
        assertEquals(1724762625575655500L, chunk.sampleTimestampNanos(0));
        assertEquals(1724762625575656000L, chunk.sampleTimestampNanos(1));
        assertEquals(1724762625600000000L, chunk.sampleTimestampNanos(2));
        assertEquals(1724762630000000000L, chunk.sampleTimestampNanos(3));
    }

    @Test
    void masksInstructionAddressesOnlyForCocoa() {
        for (String platform : List.of("cocoa", "python")) {
            ObjectNode root = chunk(platform, new int[][] {{0}},
                    new Object[] {0, "1", 1.0}, new Object[] {0, "1", 2.0});
            TestChunks.frames(root).addObject().put("instruction_addr", "0xa722447ffffffffc");
            TestChunks.frames(root).addObject().put("instruction_addr", "18446744073709551615");
            ProfileChunk chunk = accepted(process(root));
            boolean cocoa = platform.equals("cocoa");
            assertNull(chunk.frames().get(0).instructionAddr());
            assertEquals(cocoa ? 0xffffffffcL : 0xa722447ffffffffcL, chunk.frames().get(1).instructionAddr(), platform);
            assertEquals(cocoa ? 0xfffffffffL : -1L, chunk.frames().get(2).instructionAddr(), platform);
        }
    }

    @Test
    void dropsThreadMetadataOfThreadsWithoutSamplesLeft() {
        ObjectNode root = chunk("python", new int[][] {{0}},
                new Object[] {0, "1", 1.0}, new Object[] {0, "1", 2.0}, new Object[] {0, "2", 2.0});
        ObjectNode threads = TestChunks.profile(root).putObject("thread_metadata");
        threads.putObject("1").put("name", "main");
        threads.putObject("2").put("name", "pruned: one sample");
        threads.putObject("3").put("name", "no samples");
        ProfileChunk chunk = accepted(process(root));
        assertEquals(Set.of("1"), chunk.threadMetadata().keySet());
        assertEquals("main", chunk.threadMetadata().get("1").name());
    }

    @Test
    void readsFrameFieldAliasesAsRelayDoes() {
        ObjectNode root = chunk("python", new int[][] {{0}}, new Object[] {0, "1", 1.0}, new Object[] {0, "1", 2.0});
        TestChunks.frames(root).removeAll();
        TestChunks.frames(root).addObject().put("name", "fn").put("file", "f.py").put("line", 7).put("column", 3)
                .put("module", "mod").put("abs_path", "/srv/f.py").put("in_app", false).put("platform", "python");
        Frame frame = accepted(process(root)).frames().get(0);
        assertEquals(new Frame("fn", "mod", "f.py", "/srv/f.py", 7, 3, false, null, "python"), frame);
    }
}
