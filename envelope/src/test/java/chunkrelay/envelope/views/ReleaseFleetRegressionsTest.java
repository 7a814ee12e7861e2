package chunkrelay.envelope.views;

import chunkrelay.chunk.ChunkItemHeader;
import chunkrelay.chunk.ChunkOutcome;
import chunkrelay.chunk.ChunkProcessor;
import chunkrelay.chunk.ProfileChunk;
import chunkrelay.envelope.testing.ReleaseFleet;
import chunkrelay.translate.ChunkTranslator;
import chunkrelay.translate.TranslationContext;
import chunkrelay.translate.view.FunctionTable;
import chunkrelay.translate.view.MergedProfile;
import chunkrelay.translate.view.ProfileDiff;
import chunkrelay.translate.view.ProfileMerger;
import chunkrelay.translate.view.Regressions;
import chunkrelay.translate.view.ViewFilter;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The regressions of issue 43 on a generated fleet of two releases ({@link ReleaseFleet}), merged in process as the
 * views merge: encode_json, a tenth more expensive in the new release, comes first with high confidence although load
 * moved between web servers and workers (which moves the pooled shares of every handler and task far more); no other
 * function is flagged, nor nearly (the others are judged on their shares of the time outside encode_json, which did
 * not move); two ranges of the same release flag nothing; and the pooled shares, the differential flame graph's,
 * would have ranked a handler first.
 */
class ReleaseFleetRegressionsTest {
    private static final long START = 1_795_000_000_000_000_000L;
    private static final long MINUTE = 60_000_000_000L;
    private static final int CHUNKS = 6;
    private static final int STEPS = 500;
    private static final Regressions.Settings DEFAULTS = new Regressions.Settings(0.001, 0.05, 0.99, 100);
    private static final List<Chunk> FLEET = new ArrayList<>();

    private record Chunk(String release, ExportProfilesServiceRequest otlp) {
    }

    @BeforeAll
    static void generate() {
        ReleaseFleet fleet = new ReleaseFleet();
        ChunkProcessor processor = new ChunkProcessor(ChunkProcessor.DEFAULT_MAX_CHUNK_BYTES);
        ChunkTranslator translator = new ChunkTranslator("chunk-relay", "test");
        for (int p = 0; p < ReleaseFleet.PROCESSES; p++) {
            for (int c = 0; c < CHUNKS; c++) {
                ChunkOutcome outcome = processor.process(fleet.chunk(p, START + c * MINUTE + p * 1_000_000_000L,
                        STEPS), new ChunkItemHeader("python", null));
                ProfileChunk chunk = ((ChunkOutcome.Accepted) outcome).chunk();
                FLEET.add(new Chunk(ReleaseFleet.release(p),
                        translator.translate(chunk, TranslationContext.forProject(1))));
            }
        }
    }

    private static MergedProfile merge(String release, long from, long to) {
        ProfileMerger merger = new ProfileMerger(new ViewFilter(from, to, null, null, null, null, null, release,
                null));
        for (Chunk chunk : FLEET) {
            merger.add(chunk.otlp(), "python", chunk.release(), "production");
        }
        return merger.result();
    }

    @Test
    void theFunctionATenthMoreExpensiveComesFirstWithHighConfidenceAndNothingElseIsFlagged() {
        MergedProfile old = merge(ReleaseFleet.OLD, Long.MIN_VALUE, Long.MAX_VALUE);
        MergedProfile fresh = merge(ReleaseFleet.NEW, Long.MIN_VALUE, Long.MAX_VALUE);
        Regressions.Result result = Regressions.compare("old", old, "new", fresh, DEFAULTS);

        assertEquals("profiler", result.baseline().unit());
        assertEquals(10, result.baseline().judgedUnits());
        assertEquals(10, result.comparison().judgedUnits());
        Regressions.FunctionChange first = result.functions().get(0);
        assertTrue(first.name().endsWith(ReleaseFleet.REGRESSED), first.toString());
        assertEquals(Regressions.Verdict.REGRESSION, first.verdict());
        assertEquals(Regressions.Verdict.REGRESSION, first.self().verdict());
        assertTrue(first.self().confidence() > 0.999, first.toString());
        assertEquals(0.10, first.self().relativeChange(), 0.03, first.toString());
        for (Regressions.FunctionChange other : result.functions().subList(1, result.functions().size())) {
            assertTrue(other.verdict() == Regressions.Verdict.UNCHANGED, other.toString());
            // judged on their shares of the samples outside encode_json, which did not move
            assertTrue(other.self().confidence() == null || other.self().confidence() < 0.9, other.toString());
        }

        // the pooled shares moved far more for the handlers and tasks, whose cost did not change
        ProfileDiff.Result pooled = ProfileDiff.compare("old", old, "new", fresh);
        ProfileDiff.FunctionChange largest = pooled.functions().get(0);
        assertTrue(!largest.name().endsWith(ReleaseFleet.REGRESSED)
                && Math.abs(largest.totalChange()) > 5 * Math.abs(first.self().change()), largest.toString());
    }

    @Test
    void twoRangesOfTheSameReleaseShowNoRegression() {
        long middle = START + CHUNKS / 2 * MINUTE;
        for (String release : List.of(ReleaseFleet.OLD, ReleaseFleet.NEW)) {
            Regressions.Result result = Regressions.compare("early", merge(release, START, middle), "late",
                    merge(release, middle, START + CHUNKS * MINUTE), DEFAULTS);
            assertTrue(result.judged() > 20, "functions were judged: " + result.judged());
            for (Regressions.FunctionChange function : result.functions()) {
                assertTrue(function.verdict() == Regressions.Verdict.UNCHANGED, release + ": " + function);
            }
        }
    }

    @Test
    void aSideOfOneProcessIsSpreadOverItsThreads() {
        ViewFilter oneWebServer = new ViewFilter(Long.MIN_VALUE, Long.MAX_VALUE, ReleaseFleet.profilerId(0), null,
                null, null);
        ProfileMerger merger = new ProfileMerger(oneWebServer);
        FLEET.forEach(chunk -> merger.add(chunk.otlp(), "python", chunk.release(), "production"));
        MergedProfile one = merger.result();
        Regressions.Result result = Regressions.compare("a", one, "b", one, DEFAULTS);
        assertEquals("thread", result.baseline().unit());
        assertEquals(4, result.baseline().judgedUnits());
        assertTrue(result.functions().stream().allMatch(f -> f.verdict() == Regressions.Verdict.UNCHANGED
                || f.verdict() == Regressions.Verdict.NOT_JUDGED));
        assertEquals(FunctionTable.of(one).samples(), result.baseline().samples());
    }
}
