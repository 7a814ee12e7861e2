package chunkrelay.translate;

import chunkrelay.chunk.ProfileChunk;
import chunkrelay.chunk.spans.SpanRecord;
import com.google.protobuf.ByteString;
import io.opentelemetry.proto.profiles.v1development.Link;
import io.opentelemetry.proto.profiles.v1development.Profile;

import java.util.HexFormat;

import static chunkrelay.translate.OtlpAttributes.SENTRY_SAMPLES_AMBIGUOUS;
import static chunkrelay.translate.OtlpAttributes.SENTRY_SAMPLES_LINKED;

/**
 * The links of a chunk's samples: each sample to the innermost span of the timeline covering it on its thread, each
 * span's link added to the dictionary the first time a sample reaches it; and how many samples were linked and left
 * unlinked as ambiguous.
 */
final class SpanLinks {
    private final ProfileChunk chunk;
    private final SpanTimeline spans;
    private final ProfilesDictionaryBuilder dictionary;
    /** Chunk thread index to its span answers; null until first reached. */
    private final SpanTimeline.ThreadLinks[] linksOfThread;
    /** Span index to link index; 0 until first reached. */
    private final int[] linkOfSpan;
    private int linked;
    private int ambiguous;

    SpanLinks(ProfileChunk chunk, SpanTimeline spans, ProfilesDictionaryBuilder dictionary) {
        this.chunk = chunk;
        this.spans = spans;
        this.dictionary = dictionary;
        this.linksOfThread = new SpanTimeline.ThreadLinks[chunk.threadCount()];
        this.linkOfSpan = new int[spans.size()];
    }

    /** The link index of a sample of thread {@code thread} at {@code timestamp}: 0 when no span links it. */
    int link(int thread, long timestamp) {
        if (spans.isEmpty()) {
            return 0;
        }
        SpanTimeline.ThreadLinks links = linksOfThread[thread];
        if (links == null) {
            links = linksOfThread[thread] = spans.forThread(chunk.threadId(thread), chunk.threadCount() == 1);
        }
        int span = links.spanAt(timestamp);
        if (span == SpanTimeline.AMBIGUOUS) {
            ambiguous++;
            return 0;
        }
        if (span == SpanTimeline.UNLINKED) {
            return 0;
        }
        linked++;
        int known = linkOfSpan[span];
        if (known != 0) {
            return known;
        }
        SpanRecord record = spans.span(span);
        return linkOfSpan[span] = dictionary.link(Link.newBuilder()
                .setTraceId(ByteString.copyFrom(HexFormat.of().parseHex(record.traceId())))
                .setSpanId(ByteString.copyFrom(HexFormat.of().parseHex(record.spanId())))
                .build());
    }

    /**
     * The counts as profile attributes, when there were spans to link to. Added last, so that a profile translated
     * without spans and linked later ({@link SampleLinker}) comes out with the same tables: the counts only append.
     */
    void addCounts(Profile.Builder profile) {
        if (!spans.isEmpty()) {
            profile.addAttributeIndices(dictionary.attribute(SENTRY_SAMPLES_LINKED, linked));
            profile.addAttributeIndices(dictionary.attribute(SENTRY_SAMPLES_AMBIGUOUS, ambiguous));
        }
    }

    int linked() {
        return linked;
    }

    int ambiguous() {
        return ambiguous;
    }
}
