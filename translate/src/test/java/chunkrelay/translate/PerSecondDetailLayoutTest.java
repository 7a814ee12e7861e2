package chunkrelay.translate;

import chunkrelay.translate.view.MergedProfile;
import chunkrelay.translate.view.PprofWriter;
import chunkrelay.translate.view.ProfileMerger;
import chunkrelay.translate.view.Rollup;
import chunkrelay.translate.view.RollupCodec;
import chunkrelay.translate.view.TimeGrid;
import chunkrelay.translate.view.ViewFilter;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A per-second detail keeps each sample group once with the seconds it lies in: its groups are the bucket's rollup's,
 * it is written as format 4 and read back as written, a format 3 detail (one group per second) still reads as the
 * same detail, a window of its seconds taken into a merge split per second equals the chunks merged over that
 * window, and its heap estimate grows by a few columns per second, not by a row.
 */
class PerSecondDetailLayoutTest {
    private static final long SECOND = 1_000_000_000L;
    private static final long BUCKET = 10 * SECOND;
    /** The bucket of {@link RollupMergeTest#chunks()} holding a wall-clock chunk and the CPU-time one. */
    private static final long START = Math.floorDiv(TestChunk.T0, BUCKET) * BUCKET + 3 * BUCKET;
    private static final Set<String> INCLUDED = Set.of("c2", "c3");

    private static ProfileMerger merged(ProfileMerger merger) {
        List<ExportProfilesServiceRequest> chunks = RollupMergeTest.chunks();
        for (int c = 0; c < chunks.size(); c++) {
            merger.add(chunks.get(c), "python", release(c), "production");
        }
        return merger;
    }

    private static String release(int chunk) {
        return chunk % 2 == 0 ? "a@1" : "b@2";
    }

    private static Rollup rollup(MergedProfile profile) {
        return new Rollup(START, START + BUCKET, profile, new TreeSet<>(INCLUDED), new TreeMap<>());
    }

    @Test
    void aDetailHoldsTheRollupsGroupsEachWithItsSecondsAndReadsBackFromFormat4AsWritten() {
        MergedProfile detail = merged(Rollup.detailMerger(START, START + BUCKET, 10)).result();
        MergedProfile plain = merged(Rollup.merger(START, START + BUCKET, 10)).result();

        assertEquals(plain.samples(), detail.samples(), "the groups taken whole are the rollup's");
        assertTrue(detail.stepEntries() > detail.samples().size(), "groups span seconds: "
                + detail.stepEntries() + " entries of " + detail.samples().size() + " groups");
        assertEquals(0, plain.stepEntries());
        byte[] written = RollupCodec.write(rollup(detail));
        assertEquals(4, written[0], "format 4");
        assertEquals(2, RollupCodec.write(rollup(plain))[0], "a rollup not split stays format 2");
        Rollup read = RollupCodec.read(written);
        assertTrue(read.perTick());
        assertEquals(detail.samples(), read.profile().samples());
        assertEquals(detail.stepEntries(), read.profile().stepEntries());
        assertEquals(detail.lastSampleNanos(), read.profile().lastSampleNanos());
        assertArrayEquals(written, RollupCodec.write(read), "read back, the same bytes");
    }

    @Test
    void aFormat3DetailWrittenAsOneGroupPerSecondReadsAsTheSameDetail() throws IOException {
        byte[] format3;
        // written by the codec before the tick lists, from RollupMergeTest's chunks: this bucket, chunks c2 and c3
        try (InputStream in = getClass().getResourceAsStream("/rollups/format3-detail.bin")) {
            format3 = in.readAllBytes();
        }
        assertEquals(3, format3[0]);
        MergedProfile detail = merged(Rollup.detailMerger(START, START + BUCKET, 10)).result();

        Rollup read = RollupCodec.read(format3);

        assertTrue(read.perTick());
        assertArrayEquals(RollupCodec.write(rollup(detail)), RollupCodec.write(read),
                "the detail merged now, byte for byte");
        ProfileMerger whole = Rollup.merger(START, START + BUCKET, 10);
        whole.add(read);
        assertArrayEquals(RollupCodec.write(rollup(merged(Rollup.merger(START, START + BUCKET, 10)).result())),
                RollupCodec.write(rollup(whole.result())), "taken whole, the bucket's rollup");
    }

    @Test
    void aWindowOfSecondsTakenIntoAMergeSplitPerSecondEqualsTheChunksMergedSoOverIt() {
        Rollup detail = rollup(merged(Rollup.detailMerger(START, START + BUCKET, 10)).result());
        TimeGrid seconds = new TimeGrid(START, SECOND, 10);
        Random random = new Random(7);
        for (int round = 0; round < 20; round++) {
            long from = START + SECOND * random.nextInt(10);
            long to = from + SECOND * (1 + random.nextInt((int) ((START + BUCKET - from) / SECOND)));
            Rollup fromChunks = rollup(merged(new ProfileMerger(ViewFilter.between(from, to), seconds, true, true))
                    .result());
            ProfileMerger fromDetail = new ProfileMerger(ViewFilter.between(from, to), seconds, true, true);
            fromDetail.add(detail, from, to);
            Rollup window = rollup(fromDetail.result());

            // the window whole and second by second (the chunks also map threads with no sample in the window,
            // which no answer shows)
            String range = (from - START) / SECOND + ".." + (to - START) / SECOND + " s";
            assertSameAnswer(fromChunks, window, from, to, range);
            for (long second = from; second < to; second += SECOND) {
                assertSameAnswer(fromChunks, window, second, second + SECOND,
                        (second - START) / SECOND + " s of " + range);
            }
        }
    }

    /** The pprof answers to a range made from two merges split per second, and their chunk counts, are equal. */
    private static void assertSameAnswer(Rollup expected, Rollup actual, long from, long to, String range) {
        MergedProfile expectedAnswer = answer(expected, from, to);
        MergedProfile actualAnswer = answer(actual, from, to);
        assertEquals(expectedAnswer.chunks(), actualAnswer.chunks(), range);
        assertArrayEquals(PprofWriter.toProto(expectedAnswer).toByteArray(),
                PprofWriter.toProto(actualAnswer).toByteArray(), range);
    }

    private static MergedProfile answer(Rollup split, long from, long to) {
        ProfileMerger merger = new ProfileMerger(ViewFilter.between(from, to), null, false);
        merger.add(split, from, to);
        return merger.result();
    }

    @Test
    void secondsAddedBeforeTheOnesAGroupHoldsSortIntoPlace() {
        ProfileMerger inOrder = merged(Rollup.detailMerger(START, START + BUCKET, 10));
        ProfileMerger laterFirst = Rollup.detailMerger(START, START + BUCKET, 10);
        List<ExportProfilesServiceRequest> chunks = RollupMergeTest.chunks();
        // each chunk's later seconds first, then its earlier ones, then its middle ones
        long[] cuts = {START + 7 * SECOND, START + BUCKET, START, START + 3 * SECOND, START + 3 * SECOND,
                START + 7 * SECOND};
        for (int part = 0; part < cuts.length; part += 2) {
            for (int c = 0; c < chunks.size(); c++) {
                laterFirst.add(chunks.get(c), "python", release(c), "production", cuts[part], cuts[part + 1]);
            }
        }

        assertArrayEquals(RollupCodec.write(rollup(inOrder.result())),
                RollupCodec.write(rollup(laterFirst.result())));
    }

    @Test
    void aDetailsHeapEstimateGrowsByAFewColumnsPerSecondNotByARowPerSecond() {
        MergedProfile detail = merged(Rollup.detailMerger(START, START + BUCKET, 10)).result();
        MergedProfile plain = merged(Rollup.merger(START, START + BUCKET, 10)).result();

        long perSecond = detail.estimatedHeapBytes() - plain.estimatedHeapBytes();
        // a sample group object alone takes 64 bytes: a row per second would cost more than that per entry
        assertTrue(perSecond > 0 && perSecond < 40L * detail.stepEntries(), perSecond + " bytes for "
                + detail.stepEntries() + " entries");
        assertTrue(plain.estimatedHeapBytes() > 64L * plain.samples().size(), "the groups are counted");
    }
}
