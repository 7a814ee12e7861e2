package chunkrelay.envelope.rollups;

import chunkrelay.storage.RollupTier;
import chunkrelay.translate.view.MergedProfile;
import chunkrelay.translate.view.ProfileMerger;
import chunkrelay.translate.view.Rollup;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * One open minute of one project ({@link OpenMinutes}): the partial rollup of the chunks derived so far (split per
 * second, as a settled minute's detail is), the forms derived since it was last merged, and the chunks waiting in this
 * relay for their window. Merging costs the size of the partial, so derived forms queue and are merged
 * {@value #FOLD_CHUNKS} at a time (or {@value #FOLD_BYTES} bytes), and whenever a query reads the minute.
 */
final class OpenMinute {
    private static final int FOLD_CHUNKS = 32;
    private static final long FOLD_BYTES = 8L << 20;
    /** What one chunk name held costs on the heap, roughly: the estimate the memory budget counts. */
    private static final long ROW_BYTES = 96;

    /** A derived form waiting to be merged, with the chunk attributes a rollup keeps threads apart by. */
    record Queued(byte[] otlp, boolean compressed, String platform, String release, String environment) {
    }

    /** One open minute of one project. */
    record Key(String project, long minute) {
    }

    /**
     * A replica's partial of a minute: its rollup (null while nothing is merged; its {@code included} names the
     * chunks it holds) and the chunks waiting in that replica for their window.
     */
    record Partial(Rollup rollup, Set<String> waiting) {
        Set<String> included() {
            return rollup == null ? Set.of() : rollup.included();
        }
    }

    /** This relay's partial, and how many changes the minute has seen (to share it only when changed). */
    record Folded(Partial partial, long changes) {
    }

    private final long start;
    private Rollup merged;
    /** The chunks acknowledged and not derived yet, counted from their form at receipt. */
    private final ReceivedChunks received;
    /** The partial with the received chunks, as last asked, and the change it was made at. */
    private Rollup view;
    private long viewChanges = -1;
    private long viewBytes;
    private final List<Queued> queued = new ArrayList<>();
    private long queuedBytes;
    /** The chunks merged or queued. */
    private final Set<String> included = new HashSet<>();
    private final Set<String> waiting = new HashSet<>();
    private long mergedBytes;
    private long changes;

    OpenMinute(long start) {
        this.start = start;
        this.received = new ReceivedChunks(start);
    }

    synchronized void waiting(String name) {
        if (!included.contains(name) && waiting.add(name)) {
            changes++;
        }
    }

    /**
     * A chunk acknowledged now, with its form at receipt (and the attributes a rollup keeps threads apart by):
     * counted at once, its links once it is derived. Returns the change of the minute's heap estimate.
     */
    synchronized long received(String name, ExportProfilesServiceRequest unlinked, String platform, String release,
                               String environment) {
        long before = heapBytes();
        if (!included.contains(name) && received.received(name, unlinked, platform, release, environment)) {
            waiting.remove(name);
            changes++;
        }
        return heapBytes() - before;
    }

    synchronized void released(String name) {
        boolean changed = waiting.remove(name);
        if (received.waits(name)) {
            // its segment breaks: the segment's other chunks wait uncounted, those it held derived are merged
            ReceivedChunks.Broken broken = received.released(name);
            waiting.addAll(broken.underived());
            queue(broken.derived());
            changed = true;
        }
        if (changed) {
            changes++;
        }
    }

    /** Queues a derived form, merging the queue when it is full; returns the change of the minute's heap estimate. */
    synchronized long derived(String name, Queued form, Function<Queued, ExportProfilesServiceRequest> parse) {
        waiting.remove(name);
        if (!included.add(name)) {
            return 0;
        }
        changes++;
        long before = heapBytes();
        // a chunk counted since its receipt waits with its segment, so that it is never counted twice or not at all
        queue(received.holds(name) ? received.derived(name, form) : List.of(form));
        if (queued.size() >= FOLD_CHUNKS || queuedBytes >= FOLD_BYTES) {
            fold(parse);
        }
        return heapBytes() - before;
    }

    private void queue(List<Queued> forms) {
        for (Queued form : forms) {
            queued.add(form);
            queuedBytes += form.otlp().length;
        }
    }

    /** Merges what is queued and gives the partial with the names it covers (a copy, for one query). */
    synchronized Folded fold(Function<Queued, ExportProfilesServiceRequest> parse) {
        if (!queued.isEmpty()) {
            ProfileMerger merger = mergerWithDerived();
            for (Queued form : queued) {
                merger.add(parse.apply(form), form.platform(), form.release(), form.environment());
            }
            merged = new Rollup(start, end(), merger.result(), new TreeSet<>(included), new TreeMap<>());
            mergedBytes = estimate(merged.profile());
            queued.clear();
            queuedBytes = 0;
        }
        return new Folded(new Partial(withReceived(), Set.copyOf(waiting)), changes);
    }

    /**
     * A merger of the minute holding what is derived and merged so far; per second, so that a range starting or ending
     * inside the minute is answered from the partial.
     */
    private ProfileMerger mergerWithDerived() {
        ProfileMerger merger = Rollup.detailMerger(start, end(), RollupTier.MINUTE.ticks());
        if (merged != null) {
            merger.add(merged);
        }
        return merger;
    }

    private long end() {
        return start + RollupTier.MINUTE.bucketNanos();
    }

    /** The derived partial with the received chunks' segments merged in, made again only after a change. */
    private Rollup withReceived() {
        if (received.isEmpty()) {
            view = null;
            viewBytes = 0;
            return merged;
        }
        if (viewChanges != changes) {
            ProfileMerger merger = mergerWithDerived();
            received.merged().forEach(merger::add);
            SortedSet<String> names = new TreeSet<>(included);
            names.addAll(received.names());
            view = new Rollup(start, end(), merger.result(), names, new TreeMap<>());
            viewBytes = estimate(view.profile());
            viewChanges = changes;
        }
        return view;
    }

    /** Whether it holds chunks counted from receipt that are not derived yet (or whose derived forms wait). */
    synchronized boolean counting() {
        return !received.isEmpty();
    }

    synchronized long heapBytes() {
        return mergedBytes + queuedBytes + received.heapBytes() + viewBytes
                + ROW_BYTES * (included.size() + waiting.size() + received.names().size());
    }

    /** What a merged profile holds on the heap, roughly. */
    static long estimate(MergedProfile profile) {
        return profile.estimatedHeapBytes();
    }
}
