package chunkrelay.envelope.links;

import chunkrelay.chunk.ProfileChunk;
import chunkrelay.chunk.spans.SpanRecord;
import chunkrelay.translate.SpanTimeline;
import jakarta.inject.Singleton;

import java.util.ArrayList;
import java.util.List;

/** The spans a chunk's samples can link to: those of its profiler overlapping its samples' time. */
@Singleton
public class LinkedSpans {
    private final SpanIndex index;
    private final SpanLog log;
    private final LinksConfig config;

    public LinkedSpans(SpanIndex index, SpanLog log, LinksConfig config) {
        this.index = index;
        this.log = log;
        this.config = config;
    }

    /**
     * @param withLog also the span log's spans (what other replicas and earlier runs saw); costs a listing of the
     *                bucket, so only derivations after the window use it
     * @throws chunkrelay.storage.ArchiveUnavailableException when the span log cannot be read
     */
    public SpanTimeline forChunk(long projectId, ProfileChunk chunk, boolean withLog) {
        if (chunk.profilerId() == null || chunk.sampleCount() == 0) {
            return SpanTimeline.NONE;
        }
        return forSamples(projectId, chunk.profilerId().toHex(), chunk.firstSampleNanos(), chunk.lastSampleNanos(),
                withLog);
    }

    /**
     * As {@link #forChunk}, for samples of a profiler (hex, or null for none) from {@code first} to {@code last}.
     *
     * @throws chunkrelay.storage.ArchiveUnavailableException when the span log cannot be read
     */
    public SpanTimeline forSamples(long projectId, String profilerId, long first, long last, boolean withLog) {
        if (profilerId == null) {
            return SpanTimeline.NONE;
        }
        List<SpanRecord> spans = new ArrayList<>(index.spans(projectId, profilerId, first, last));
        if (withLog && config.spanLog()) {
            spans.addAll(log.read(projectId, profilerId, first, last));
        }
        return SpanTimeline.of(spans);
    }
}
