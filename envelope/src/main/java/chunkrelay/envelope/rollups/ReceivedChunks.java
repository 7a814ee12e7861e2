package chunkrelay.envelope.rollups;

import chunkrelay.storage.RollupTier;
import chunkrelay.translate.view.MergedProfile;
import chunkrelay.translate.view.ProfileMerger;
import chunkrelay.translate.view.Rollup;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The chunks of one open minute that this relay acknowledged and has not derived yet, counted from the form they were
 * translated to at receipt (the same samples as the OTLP form derived after the link window, without its links), so
 * that an answer holds a chunk as soon as it is acknowledged. Not thread-safe: its {@link OpenMinute} locks.
 *
 * <p>A chunk cannot be taken out of a merged partial again when it is derived, so the chunks are kept in segments of
 * at most {@value #SEGMENT_CHUNKS} in the order they came: each chunk is merged into its segment once, at receipt,
 * and nothing of its form is held after; the derived forms of a segment's chunks are held back until every chunk of
 * the segment is derived, and then the segment gives way to them (or, when none of them had a span to link, its
 * merged rollup stands for them: the same samples, merged once already). Chunks derive in the order they came (each
 * after the same window), so a segment lives about a window plus the time its chunks took to come, and a chunk is always in
 * exactly one of a segment or the minute's derived partial. A chunk of a segment that will not be derived here
 * (its derivation failed, or another replica derived it) breaks its segment: the segment's other chunks then wait
 * uncounted for their derivation, as they would without a form at receipt.
 */
final class ReceivedChunks {
    private static final int SEGMENT_CHUNKS = 32;

    /** The segments' chunk names given up when a segment breaks, and the derived forms it held. */
    record Broken(Set<String> underived, List<OpenMinute.DerivedForm> derived) {
        static final Broken NONE = new Broken(Set.of(), List.of());
    }

    private static final class Segment {
        /** The chunks merged, until the segment is full; then null. */
        ProfileMerger merger;
        final Set<String> names = new LinkedHashSet<>();
        /** Chunks of the segment not derived yet. */
        final Set<String> underived = new HashSet<>();
        /** Derived forms of the segment's chunks, held back until the segment is done. */
        final List<OpenMinute.DerivedForm> derived = new ArrayList<>();
        /** The segment's chunks merged as last asked (final once full), or null after a change. */
        Rollup merged;
        long mergedBytes;
    }

    private final long start;
    private final List<Segment> segments = new ArrayList<>();
    private final Map<String, Segment> segmentOf = new HashMap<>();

    ReceivedChunks(long start) {
        this.start = start;
    }

    /** Merges a chunk acknowledged now into the newest segment; false when it is here already. */
    boolean received(String name, ExportProfilesServiceRequest unlinked, String platform, String release,
                     String environment) {
        if (segmentOf.containsKey(name)) {
            return false;
        }
        Segment last = segments.isEmpty() ? null : segments.get(segments.size() - 1);
        if (last == null || last.merger == null) {
            last = new Segment();
            last.merger = Rollup.detailMerger(start, start + RollupTier.MINUTE.bucketNanos(),
                    RollupTier.MINUTE.ticks());
            segments.add(last);
        }
        last.merger.add(unlinked, platform, release, environment);
        last.names.add(name);
        last.underived.add(name);
        last.merged = null;
        if (last.names.size() >= SEGMENT_CHUNKS) {
            last.merged = rollup(last.merger.result(), last);
            last.mergedBytes = last.merged.profile().estimatedHeapBytes();
            last.merger = null;
        }
        segmentOf.put(name, last);
        return true;
    }

    /** Whether the chunk is here, derived or not. */
    boolean holds(String name) {
        return segmentOf.containsKey(name);
    }

    /** Whether the chunk is here and not derived yet. */
    boolean waits(String name) {
        Segment segment = segmentOf.get(name);
        return segment != null && segment.underived.contains(name);
    }

    /**
     * What the segments that are done give the minute's derived partial: the derived forms to merge now, and, of a
     * segment whose every chunk was derived as it was received (no span to link), its merged rollup as it is.
     */
    record Done(List<OpenMinute.DerivedForm> forms, List<Rollup> asReceived) {
    }

    /**
     * A chunk of a segment is derived: its form is held back with the segment's, and every segment that is done
     * gives way to its chunks' derived forms.
     */
    Done derived(String name, OpenMinute.DerivedForm form) {
        Segment segment = segmentOf.get(name);
        segment.derived.add(form);
        segment.underived.remove(name);
        List<OpenMinute.DerivedForm> forms = new ArrayList<>();
        List<Rollup> asReceived = new ArrayList<>();
        for (Iterator<Segment> each = segments.iterator(); each.hasNext(); ) {
            Segment done = each.next();
            if (done.underived.isEmpty()) {
                each.remove();
                done.names.forEach(segmentOf::remove);
                if (done.derived.stream().allMatch(OpenMinute.DerivedForm::asReceived)) {
                    // the same samples, merged once already: the segment's rollup is its chunks' derived rollup
                    asReceived.add(done.merger == null ? done.merged : rollup(done.merger.result(), done));
                } else {
                    forms.addAll(done.derived);
                }
            }
        }
        return new Done(forms, asReceived);
    }

    /**
     * A chunk not derived yet will not be derived here: its segment breaks, giving back the names of its chunks not
     * derived yet (to wait uncounted) and the derived forms it held (to merge now).
     */
    Broken released(String name) {
        if (!waits(name)) {
            // a chunk derived here is let go by its derivation too: its derived form is held with the segment's
            return Broken.NONE;
        }
        Segment segment = segmentOf.get(name);
        segments.remove(segment);
        segment.names.forEach(segmentOf::remove);
        Set<String> underived = new HashSet<>(segment.underived);
        underived.remove(name);
        return new Broken(underived, segment.derived);
    }

    /** The names of the chunks held, derived or not. */
    Set<String> names() {
        return segmentOf.keySet();
    }

    boolean isEmpty() {
        return segments.isEmpty();
    }

    /** Each segment merged (split per second, as the minute's partial is); the one taking chunks as it is now. */
    List<Rollup> merged() {
        List<Rollup> merged = new ArrayList<>(segments.size());
        for (Segment segment : segments) {
            if (segment.merged == null) {
                segment.merged = rollup(segment.merger.snapshot(), segment);
                segment.mergedBytes = segment.merged.profile().estimatedHeapBytes();
            }
            merged.add(segment.merged);
        }
        return merged;
    }

    private Rollup rollup(MergedProfile profile, Segment segment) {
        return new Rollup(start, start + RollupTier.MINUTE.bucketNanos(), profile, new TreeSet<>(segment.names),
                new TreeMap<>());
    }

    /** What the merged segments and the derived forms held back take on the heap, roughly. */
    long heapBytes() {
        long bytes = 0;
        for (Segment segment : segments) {
            // a segment still taking chunks holds its tables besides the copy last looked at
            bytes += segment.merger == null ? segment.mergedBytes : 2 * segment.mergedBytes;
            for (OpenMinute.DerivedForm form : segment.derived) {
                bytes += form.heapBytes();
            }
        }
        return bytes;
    }
}
