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
    /** What one row of a merged table costs on the heap, roughly: the estimate the memory budget counts. */
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
    private final List<Queued> queued = new ArrayList<>();
    private long queuedBytes;
    /** The chunks merged or queued. */
    private final Set<String> included = new HashSet<>();
    private final Set<String> waiting = new HashSet<>();
    private long mergedBytes;
    private long changes;

    OpenMinute(long start) {
        this.start = start;
    }

    synchronized void waiting(String name) {
        if (!included.contains(name) && waiting.add(name)) {
            changes++;
        }
    }

    synchronized void released(String name) {
        if (waiting.remove(name)) {
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
        queued.add(form);
        queuedBytes += form.otlp().length;
        if (queued.size() >= FOLD_CHUNKS || queuedBytes >= FOLD_BYTES) {
            fold(parse);
        }
        return heapBytes() - before;
    }

    /** Merges what is queued and gives the partial with the names it covers (a copy, for one query). */
    synchronized Folded fold(Function<Queued, ExportProfilesServiceRequest> parse) {
        if (!queued.isEmpty()) {
            long end = start + RollupTier.MINUTE.bucketNanos();
            // per second, so that a range starting or ending inside the minute is answered from the partial
            ProfileMerger merger = Rollup.detailMerger(start, end, RollupTier.MINUTE.ticks());
            if (merged != null) {
                merger.add(merged);
            }
            for (Queued form : queued) {
                merger.add(parse.apply(form), form.platform(), form.release(), form.environment());
            }
            merged = new Rollup(start, end, merger.result(), new TreeSet<>(included), new TreeMap<>());
            mergedBytes = estimate(merged.profile());
            queued.clear();
            queuedBytes = 0;
        }
        return new Folded(new Partial(merged, Set.copyOf(waiting)), changes);
    }

    synchronized long heapBytes() {
        return mergedBytes + queuedBytes + ROW_BYTES * (included.size() + waiting.size());
    }

    /** What a merged profile holds on the heap, roughly. */
    static long estimate(MergedProfile profile) {
        long rows = profile.functions().size() + profile.locations().size() + profile.stacks().size()
                + profile.threads().size() + profile.links().size() + profile.samples().size();
        long ticks = profile.grid() == null ? 0 : (long) profile.threads().size() * profile.grid().steps() * 8;
        return rows * ROW_BYTES + ticks;
    }
}
