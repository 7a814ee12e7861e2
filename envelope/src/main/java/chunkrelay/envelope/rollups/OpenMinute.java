package chunkrelay.envelope.rollups;

import chunkrelay.storage.RollupTier;
import chunkrelay.translate.OtlpHeap;
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
 * One open minute of one project ({@link OpenMinutes}): the partial rollups of the chunks derived so far (split per
 * second, as a settled minute's detail is), and the chunks waiting in this relay for their window. A derived form is
 * merged as it comes into the part being filled, which closes after {@value #PART_CHUNKS} chunks, and whenever a
 * query reads the minute; two parts are merged into one when the newer holds as many chunks as the older (by the
 * deriving thread, outside the lock, {@link #compact()}), so that a minute of n chunks is held in about log2(n) + 1
 * rollups and each chunk is merged about log2(n) times, not once per fold as a single partial remade at each fold
 * would (a minute of a 200-process fleet is 37 parts).
 */
final class OpenMinute {
    private static final int PART_CHUNKS = 32;
    /** What one chunk name held costs on the heap, roughly: the estimate the memory budget counts. */
    private static final long ROW_BYTES = 96;

    /**
     * A derived form to merge: the chunk's name in the minute, its form (the object made by the derivation, or, when
     * the chunk waited and was stored as compressed bytes, those), whether it is the form counted at receipt
     * unchanged, and the chunk attributes a rollup keeps threads apart by.
     */
    record DerivedForm(String name, ExportProfilesServiceRequest form, byte[] compressedOtlp, boolean asReceived,
                       String platform, String release, String environment) {
        /** What holding it costs, for the memory budget. */
        long heapBytes() {
            return form != null ? OtlpHeap.bytes(form) : compressedOtlp.length;
        }
    }

    /** One open minute of one project. */
    record Key(String project, long minute) {
    }

    /**
     * A replica's partial of a minute: its rollups (none while nothing is merged; their {@code included} name the
     * chunks they hold, none in two of them), and the chunks waiting in that replica for their window. This relay's
     * partial is its derived rollup and its received chunks' segments, not merged into one: a query merges them
     * anyway, and a merged copy would double what the minute holds.
     */
    record Partial(List<Rollup> rollups, Set<String> waiting) {
        Set<String> included() {
            if (rollups.size() == 1) {
                return rollups.get(0).included();
            }
            Set<String> names = new HashSet<>();
            rollups.forEach(rollup -> names.addAll(rollup.included()));
            return names;
        }

        /** What its rollups hold on the heap, roughly. */
        long heapBytes() {
            return rollups.stream().mapToLong(rollup -> rollup.profile().estimatedHeapBytes()).sum();
        }
    }

    /** This relay's partial, and how many changes the minute has seen (to share it only when changed). */
    record Folded(Partial partial, long changes) {
    }

    private final long start;
    /** A derived form's request: its object, or its compressed bytes parsed. */
    private final Function<DerivedForm, ExportProfilesServiceRequest> requestOf;
    /**
     * The rollups of the derived chunks, oldest first, each holding fewer chunks than the one before once
     * {@link #compact()} has run.
     */
    private final List<Rollup> derivedParts = new ArrayList<>();
    /** The chunks acknowledged and not derived yet, counted from their form at receipt. */
    private final ReceivedChunks received;
    /** The part being filled, or null; the chunks it holds; and their forms' serialised bytes, its size roughly. */
    private ProfileMerger filling;
    private final SortedSet<String> fillingNames = new TreeSet<>();
    private long fillingBytes;
    /** The chunks merged, filling, or held derived with their segment. */
    private final Set<String> included = new HashSet<>();
    private final Set<String> waiting = new HashSet<>();
    private long derivedBytes;
    private long changes;

    OpenMinute(long start, Function<DerivedForm, ExportProfilesServiceRequest> requestOf) {
        this.start = start;
        this.requestOf = requestOf;
        this.received = new ReceivedChunks(start);
    }

    synchronized void waiting(String name) {
        if (!included.contains(name) && waiting.add(name)) {
            changes++;
        }
    }

    /**
     * A chunk acknowledged now, with its form at receipt (and the attributes a rollup keeps threads apart by):
     * counted at once, its links once it is derived.
     */
    synchronized void received(String name, ExportProfilesServiceRequest unlinked, String platform, String release,
                               String environment) {
        if (!included.contains(name) && received.received(name, unlinked, platform, release, environment)) {
            waiting.remove(name);
            changes++;
        }
    }

    synchronized void released(String name) {
        boolean changed = waiting.remove(name);
        if (received.waits(name)) {
            // its segment breaks: the segment's other chunks wait uncounted, those it held derived are merged
            ReceivedChunks.Broken broken = received.released(name);
            waiting.addAll(broken.underived());
            merge(broken.derived());
            changed = true;
        }
        if (changed) {
            changes++;
        }
    }

    /** Merges a derived form into the part being filled (or holds it with its segment, see {@link ReceivedChunks}). */
    synchronized void derived(DerivedForm form) {
        String name = form.name();
        waiting.remove(name);
        if (!included.add(name)) {
            return;
        }
        changes++;
        // a chunk counted since its receipt waits with its segment, so that it is never counted twice or not at all
        if (!received.holds(name)) {
            merge(List.of(form));
            return;
        }
        ReceivedChunks.Done done = received.derived(name, form);
        merge(done.forms());
        done.asReceived().forEach(this::addPart);
    }

    private void merge(List<DerivedForm> forms) {
        for (DerivedForm form : forms) {
            if (filling == null) {
                // per second, so that a range starting or ending inside the minute is answered from the partial
                filling = Rollup.detailMerger(start, end(), RollupTier.MINUTE.ticks());
            }
            ExportProfilesServiceRequest request = requestOf.apply(form);
            filling.add(request, form.platform(), form.release(), form.environment());
            fillingNames.add(form.name());
            fillingBytes += request.getSerializedSize();
            if (fillingNames.size() >= PART_CHUNKS) {
                closeFilling();
            }
        }
    }

    /** Merges what is filling and gives the partial with the names it covers (its rollups shared, for one query). */
    synchronized Folded fold() {
        closeFilling();
        List<Rollup> rollups = new ArrayList<>();
        rollups.addAll(derivedParts);
        rollups.addAll(received.merged());
        return new Folded(new Partial(List.copyOf(rollups), Set.copyOf(waiting)), changes);
    }

    /**
     * The rollups of its derived chunks, the part filling closed first: the minute's rollup is built from these and
     * from the archive only for the chunks they do not hold.
     */
    synchronized List<Rollup> derivedRollups() {
        closeFilling();
        return List.copyOf(derivedParts);
    }

    private void closeFilling() {
        if (filling == null) {
            return;
        }
        addPart(new Rollup(start, end(), filling.result(), new TreeSet<>(fillingNames), new TreeMap<>()));
        filling = null;
        fillingNames.clear();
        fillingBytes = 0;
    }

    /** Adds a rollup of derived chunks, the newest part; {@link #compact()} merges it with those before. */
    private void addPart(Rollup rollup) {
        derivedParts.add(rollup);
        derivedBytes += rollup.profile().estimatedHeapBytes();
    }

    /**
     * Merges the newest part with the one before while that holds no more chunks than it, outside the minute's lock:
     * merging two parts of a fleet's minute takes a tenth of a second or more, which a query reading the minute would
     * otherwise wait for. The parts are immutable, so a query meanwhile reads the two unmerged (the same samples);
     * a part merged or replaced meanwhile by another thread is left as it is.
     */
    void compact() {
        while (true) {
            Rollup older;
            Rollup newer;
            synchronized (this) {
                int parts = derivedParts.size();
                if (parts < 2 || derivedParts.get(parts - 2).included().size()
                        > derivedParts.get(parts - 1).included().size()) {
                    return;
                }
                older = derivedParts.get(parts - 2);
                newer = derivedParts.get(parts - 1);
            }
            Rollup merged = merged(older, newer);
            synchronized (this) {
                int at = derivedParts.indexOf(older);
                if (at < 0 || at + 1 >= derivedParts.size() || derivedParts.get(at + 1) != newer) {
                    return;
                }
                derivedParts.set(at, merged);
                derivedParts.remove(at + 1);
                derivedBytes = derivedParts.stream().mapToLong(each -> each.profile().estimatedHeapBytes()).sum();
            }
        }
    }

    private Rollup merged(Rollup older, Rollup newer) {
        ProfileMerger merger = Rollup.detailMerger(start, end(), RollupTier.MINUTE.ticks());
        merger.add(older);
        merger.add(newer);
        SortedSet<String> names = new TreeSet<>(older.included());
        names.addAll(newer.included());
        return new Rollup(start, end(), merger.result(), names, new TreeMap<>());
    }

    private long end() {
        return start + RollupTier.MINUTE.bucketNanos();
    }

    /** Whether it holds chunks counted from receipt that are not derived yet (or whose derived forms wait). */
    synchronized boolean counting() {
        return !received.isEmpty();
    }

    synchronized long heapBytes() {
        return derivedBytes + fillingBytes + received.heapBytes()
                + ROW_BYTES * (included.size() + waiting.size() + received.names().size());
    }
}
