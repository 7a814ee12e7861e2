package chunkrelay.translate;

import chunkrelay.chunk.SampledTime;
import chunkrelay.translate.view.CollapsedStacksWriter;
import chunkrelay.translate.view.MergedProfile;
import chunkrelay.translate.view.PprofWriter;
import chunkrelay.translate.view.ProfileMerger;
import chunkrelay.translate.view.Rollup;
import chunkrelay.translate.view.RollupCodec;
import chunkrelay.translate.view.TimeGrid;
import chunkrelay.translate.view.Timeline;
import chunkrelay.translate.view.ViewFilter;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import org.junit.jupiter.api.Test;

import java.io.StringWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Rollups are sums: chunks merged into per-second-tick rollups of their buckets, written and read back, then merged
 * (in any order) give the same profile, the same exports and the same timeline as the chunks merged directly.
 */
class RollupMergeTest {
    private static final ChunkTranslator TRANSLATOR = new ChunkTranslator("chunk-relay", "test");
    private static final long SECOND = 1_000_000_000L;
    private static final long BUCKET = 10 * SECOND;

    /**
     * Chunks of random samples over 40 s from {@link TestChunk#T0}, some idle, two threads, two releases, the last of
     * a CPU-time profiler (so rollups hold two sample types).
     */
    static List<ExportProfilesServiceRequest> chunks() {
        Random random = new Random(3);
        List<ExportProfilesServiceRequest> chunks = new ArrayList<>();
        for (int c = 0; c < 4; c++) {
            TestChunk chunk = new TestChunk().release(c % 2 == 0 ? "a@1" : "b@2")
                    .sampledTime(c == 3 ? SampledTime.CPU : SampledTime.WALL_CLOCK);
            int main = chunk.frame(TestChunk.function("main", "app.py", 1));
            int work = chunk.frame(TestChunk.function("work", "app.py", 7));
            int io = chunk.frame(TestChunk.function("io", "io.py", 3));
            int[] stacks = {chunk.stack(work, main), chunk.stack(io, work, main), chunk.stack(main), chunk.stack()};
            for (long at = c * 9 * SECOND; at < c * 9 * SECOND + 12 * SECOND; at += 10_000_000L + random.nextInt(5)) {
                chunk.sample(at, stacks[random.nextInt(stacks.length)], random.nextBoolean() ? "1" : "2");
            }
            chunk.thread("1", "main", null).thread("2", "worker", null);
            chunks.add(TRANSLATOR.translate(chunk.build(), TranslationContext.forProject(1)));
        }
        return chunks;
    }

    @Test
    void profilesMergedFromRollupsEqualThoseMergedFromTheChunks() throws Exception {
        List<ExportProfilesServiceRequest> chunks = chunks();
        long start = Math.floorDiv(TestChunk.T0, BUCKET) * BUCKET;
        List<Rollup> rollups = new ArrayList<>();
        for (long bucket = start; bucket < start + 6 * BUCKET; bucket += BUCKET) {
            ProfileMerger merger = Rollup.merger(bucket, bucket + BUCKET, 10);
            for (int c = 0; c < chunks.size(); c++) {
                merger.add(chunks.get(c), "python", c % 2 == 0 ? "a@1" : "b@2", "production");
            }
            Rollup rollup = new Rollup(bucket, bucket + BUCKET, merger.result(), new TreeSet<>(), new TreeMap<>());
            rollups.add(RollupCodec.read(RollupCodec.write(rollup)));
            assertArrayEquals(RollupCodec.write(rollup), RollupCodec.write(rollups.get(rollups.size() - 1)),
                    "a rollup read back writes the same bytes");
        }
        for (ViewFilter filter : List.of(ViewFilter.between(start, start + 6 * BUCKET),
                new ViewFilter(start + BUCKET, start + 5 * BUCKET, null, "2", null, null),
                new ViewFilter(start, start + 6 * BUCKET, null, null, null, null, null, "b@2", null))) {
            TimeGrid grid = TimeGrid.aligned(filter.fromNanos(), filter.toNanos(), 2 * SECOND);
            ProfileMerger fromChunks = new ProfileMerger(filter, grid, false);
            for (int c = 0; c < chunks.size(); c++) {
                fromChunks.add(chunks.get(c), "python", c % 2 == 0 ? "a@1" : "b@2", "production");
            }
            ProfileMerger fromRollups = new ProfileMerger(filter, grid, false);
            List<Rollup> reversed = new ArrayList<>(rollups);
            java.util.Collections.reverse(reversed);
            for (Rollup rollup : reversed) {
                if (fromRollups.accepts(rollup)) {
                    fromRollups.add(rollup);
                }
            }
            MergedProfile expected = fromChunks.result();
            MergedProfile actual = fromRollups.result();
            assertTrue(expected.sampleCount() > 100, "the filter keeps samples");
            assertEquals(expected.sampleCount(), actual.sampleCount());
            assertEquals(expected.chunks(), actual.chunks());
            assertEquals(collapsed(expected), collapsed(actual));
            assertArrayEquals(PprofWriter.toProto(expected).toByteArray(), PprofWriter.toProto(actual).toByteArray(),
                    "pprof byte for byte");
            Timeline.Result expectedSteps = Timeline.of(expected, Timeline.By.THREAD);
            Timeline.Result actualSteps = Timeline.of(actual, Timeline.By.THREAD);
            assertEquals(expectedSteps.series().size(), actualSteps.series().size());
            for (int s = 0; s < expectedSteps.series().size(); s++) {
                assertEquals(Arrays.toString(expectedSteps.series().get(s).counts()),
                        Arrays.toString(actualSteps.series().get(s).counts()));
            }
        }
    }

    @Test
    void anyRunOfWholeTicksOfADetailEqualsTheChunksMergedOverThatRun() throws Exception {
        List<ExportProfilesServiceRequest> chunks = chunks();
        long start = Math.floorDiv(TestChunk.T0, BUCKET) * BUCKET;
        List<Rollup> details = new ArrayList<>();
        for (long bucket = start; bucket < start + 6 * BUCKET; bucket += BUCKET) {
            ProfileMerger detail = Rollup.detailMerger(bucket, bucket + BUCKET, 10);
            ProfileMerger plain = Rollup.merger(bucket, bucket + BUCKET, 10);
            for (int c = 0; c < chunks.size(); c++) {
                detail.add(chunks.get(c), "python", c % 2 == 0 ? "a@1" : "b@2", "production");
                plain.add(chunks.get(c), "python", c % 2 == 0 ? "a@1" : "b@2", "production");
            }
            Rollup written = new Rollup(bucket, bucket + BUCKET, detail.result(), new TreeSet<>(), new TreeMap<>());
            Rollup read = RollupCodec.read(RollupCodec.write(written));
            assertTrue(read.perTick(), "read back split per tick");
            assertArrayEquals(RollupCodec.write(written), RollupCodec.write(read), "a detail reads back as written");
            details.add(read);

            // both taken whole into a rollup's merger, as the hours are built from minutes
            ProfileMerger fromDetail = Rollup.merger(bucket, bucket + BUCKET, 10);
            fromDetail.add(read);
            ProfileMerger fromRollup = Rollup.merger(bucket, bucket + BUCKET, 10);
            fromRollup.add(new Rollup(bucket, bucket + BUCKET, plain.result(), new TreeSet<>(), new TreeMap<>()));
            assertArrayEquals(RollupCodec.write(new Rollup(bucket, bucket + BUCKET, fromRollup.result(),
                            new TreeSet<>(), new TreeMap<>())),
                    RollupCodec.write(new Rollup(bucket, bucket + BUCKET, fromDetail.result(), new TreeSet<>(),
                            new TreeMap<>())), "a detail taken whole gives the bucket's rollup, byte for byte");
        }
        Random random = new Random(5);
        for (int round = 0; round < 60; round++) {
            long from = start + SECOND * random.nextInt(59);
            long to = from + SECOND * (1 + random.nextInt((int) ((start + 6 * BUCKET - from) / SECOND)));
            ViewFilter filter = switch (round % 3) {
                case 0 -> ViewFilter.between(from, to);
                case 1 -> new ViewFilter(from, to, null, "2", null, null);
                default -> new ViewFilter(from, to, null, null, null, null, null, "b@2", null);
            };
            TimeGrid grid = TimeGrid.aligned(from, to, SECOND * (1 + random.nextInt(3)));
            ProfileMerger fromChunks = new ProfileMerger(filter, grid, false);
            for (int c = 0; c < chunks.size(); c++) {
                fromChunks.add(chunks.get(c), "python", c % 2 == 0 ? "a@1" : "b@2", "production");
            }
            ProfileMerger fromDetails = new ProfileMerger(filter, grid, false);
            for (Rollup detail : details) {
                long partFrom = Math.max(from, detail.startNanos());
                long partTo = Math.min(to, detail.endNanos());
                if (partFrom < partTo) {
                    assertTrue(fromDetails.accepts(detail, partFrom, partTo), "a part cut on seconds fits");
                    fromDetails.add(detail, partFrom, partTo);
                }
            }
            MergedProfile expected = fromChunks.result();
            MergedProfile actual = fromDetails.result();
            String range = (from - start) / SECOND + ".." + (to - start) / SECOND + " s, filter " + round % 3;
            assertEquals(expected.sampleCount(), actual.sampleCount(), range);
            assertEquals(expected.chunks(), actual.chunks(), range);
            assertArrayEquals(PprofWriter.toProto(expected).toByteArray(), PprofWriter.toProto(actual).toByteArray(),
                    "pprof byte for byte, " + range);
            Timeline.Result expectedSteps = Timeline.of(expected, Timeline.By.THREAD);
            Timeline.Result actualSteps = Timeline.of(actual, Timeline.By.THREAD);
            assertEquals(expectedSteps.series().size(), actualSteps.series().size(), range);
            for (int s = 0; s < expectedSteps.series().size(); s++) {
                assertEquals(Arrays.toString(expectedSteps.series().get(s).counts()),
                        Arrays.toString(actualSteps.series().get(s).counts()), range);
            }
        }
    }

    @Test
    void aPartNotCutOnTicksOrOfARollupNotSplitPerTickIsRefused() {
        long start = Math.floorDiv(TestChunk.T0, BUCKET) * BUCKET;
        ProfileMerger detail = Rollup.detailMerger(start, start + BUCKET, 10);
        ProfileMerger plain = Rollup.merger(start, start + BUCKET, 10);
        chunks().forEach(chunk -> {
            detail.add(chunk, "python", "a@1", "production");
            plain.add(chunk, "python", "a@1", "production");
        });
        Rollup perTick = new Rollup(start, start + BUCKET, detail.result(), new TreeSet<>(), new TreeMap<>());
        Rollup whole = new Rollup(start, start + BUCKET, plain.result(), new TreeSet<>(), new TreeMap<>());
        ProfileMerger merger = new ProfileMerger(ViewFilter.between(start, start + BUCKET), null, false);
        assertTrue(merger.accepts(perTick, start + SECOND, start + 3 * SECOND));
        assertEquals(false, merger.accepts(perTick, start + SECOND / 2, start + 3 * SECOND), "off a tick");
        assertEquals(false, merger.accepts(whole, start + SECOND, start + 3 * SECOND), "not split per tick");
        assertThrows(IllegalArgumentException.class, () -> merger.add(whole, start + SECOND, start + 3 * SECOND));
        ProfileMerger anotherDetail = Rollup.detailMerger(start, start + BUCKET, 10);
        assertEquals(false, anotherDetail.accepts(whole), "a detail cannot be made from a rollup not split");
    }

    @Test
    void aRollupWhoseTicksDoNotNestInTheTimelineStepsIsRefused() {
        long start = Math.floorDiv(TestChunk.T0, BUCKET) * BUCKET;
        Rollup rollup = new Rollup(start, start + BUCKET, Rollup.merger(start, start + BUCKET, 10).result(),
                new TreeSet<>(), new TreeMap<>());
        ProfileMerger misaligned = new ProfileMerger(ViewFilter.between(start, start + BUCKET),
                new TimeGrid(start + SECOND / 2, SECOND, 10), false);
        assertEquals(false, misaligned.accepts(rollup));
        assertThrows(IllegalArgumentException.class, () -> misaligned.add(rollup));
    }

    @Test
    void aRollupWiderThanTheRangeIsTakenWholeOnlyWhenEverySampleItHoldsLiesInTheRange() {
        long start = Math.floorDiv(TestChunk.T0, BUCKET) * BUCKET;
        ProfileMerger merger = Rollup.merger(start, start + BUCKET, 10);
        chunks().forEach(chunk -> merger.add(chunk, "python", "a@1", "production"));
        Rollup rollup = new Rollup(start, start + BUCKET, merger.result(), new TreeSet<>(), new TreeMap<>());
        long first = rollup.profile().startNanos();
        long last = rollup.profile().lastSampleNanos();
        assertTrue(first > start && last < start + BUCKET - 1, "the rollup's samples lie inside its bucket");

        assertEquals(false, new ProfileMerger(ViewFilter.between(first + 1, start + BUCKET), null, false)
                .accepts(rollup), "a sample before the range: it cannot be cut");
        assertEquals(false, new ProfileMerger(ViewFilter.between(start, last), null, false).accepts(rollup),
                "a sample at the range's exclusive end");
        ProfileMerger aroundSamples = new ProfileMerger(ViewFilter.between(first, last + 1), null, false);
        assertTrue(aroundSamples.accepts(rollup), "every sample in the range, as at the minute now is in");
        aroundSamples.add(rollup);
        assertEquals(rollup.profile().sampleCount(), aroundSamples.result().sampleCount());
    }

    private static String collapsed(MergedProfile profile) throws Exception {
        StringWriter out = new StringWriter();
        CollapsedStacksWriter.write(profile, out);
        return out.toString();
    }
}
