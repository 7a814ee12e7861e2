package chunkrelay.envelope.rollups;

import chunkrelay.chunk.ChunkItemHeader;
import chunkrelay.chunk.ChunkOutcome;
import chunkrelay.chunk.ChunkProcessor;
import chunkrelay.envelope.testing.FleetChunks;
import chunkrelay.translate.ChunkTranslator;
import chunkrelay.translate.TranslationContext;
import chunkrelay.translate.view.Rollup;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import io.opentelemetry.proto.profiles.v1development.Profile;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class OpenMinutePartsTest {
    private static final long SECOND = 1_000_000_000L;
    private static final long MINUTE = 60 * SECOND;
    private static final int CHUNKS = 200;

    @Test
    void aMinuteOfNDerivedChunksIsHeldInAboutLog2NPartsWithEveryChunkOnceAndAQueryBetweenSeesEachOnce() {
        long minute = 1_790_000_000L * SECOND / MINUTE * MINUTE;
        FleetChunks fleet = new FleetChunks(FleetChunks.ROLLUP_TESTS);
        ChunkProcessor processor = new ChunkProcessor(ChunkProcessor.DEFAULT_MAX_CHUNK_BYTES);
        ChunkTranslator translator = new ChunkTranslator("chunk-relay", "test");
        OpenMinute open = new OpenMinute(minute, OpenMinute.DerivedForm::form);
        long samplesSent = 0;
        for (int c = 0; c < CHUNKS; c++) {
            byte[] json = fleet.chunk(c, FleetChunks.release(c, CHUNKS), minute + (c % 50) * SECOND, 20);
            ChunkOutcome.Accepted accepted = (ChunkOutcome.Accepted) processor.process(json,
                    new ChunkItemHeader(FleetChunks.PLATFORM, null));
            ExportProfilesServiceRequest otlp = translator.translate(accepted.chunk(),
                    TranslationContext.forProject(1));
            samplesSent += samples(otlp);
            open.derived(new OpenMinute.DerivedForm("chunk-" + c, otlp, null, false, FleetChunks.PLATFORM,
                    null, null));
            if (c % 37 == 0) {
                // a query in between closes the part being filled: it sees every chunk derived so far, once
                assertEachOnce(open.fold().partial().rollups(), c + 1);
            }
            open.compact();
        }
        List<Rollup> parts = open.fold().partial().rollups();
        open.compact();
        List<Rollup> compacted = open.fold().partial().rollups();
        assertEachOnce(compacted, CHUNKS);
        long samplesHeld = compacted.stream().mapToLong(part -> part.profile().sampleCount()).sum();
        assertEquals(samplesSent, samplesHeld);
        // 200 chunks: parts of 128, 64 and 8 once merged, against one per 32 chunks or per query unmerged
        assertTrue(compacted.size() <= 1 + (int) Math.ceil(Math.log(CHUNKS) / Math.log(2)),
                "parts held: " + compacted.size());
        for (int p = 1; p < compacted.size(); p++) {
            assertTrue(compacted.get(p - 1).included().size() > compacted.get(p).included().size(),
                    "each part holds fewer chunks than the one before once compacted");
        }
        assertTrue(parts.size() >= compacted.size());
    }

    private static void assertEachOnce(List<Rollup> parts, int chunks) {
        Set<String> seen = new HashSet<>();
        int held = 0;
        for (Rollup part : parts) {
            seen.addAll(part.included());
            held += part.included().size();
        }
        assertEquals(chunks, seen.size());
        assertEquals(chunks, held, "no chunk in two parts");
    }

    private static long samples(ExportProfilesServiceRequest otlp) {
        long count = 0;
        for (Profile profile : otlp.getResourceProfiles(0).getScopeProfiles(0).getProfilesList()) {
            for (var sample : profile.getSamplesList()) {
                count += sample.getTimestampsUnixNanoCount() > 0 ? sample.getTimestampsUnixNanoCount()
                        : sample.getValues(0);
            }
        }
        return count;
    }
}
