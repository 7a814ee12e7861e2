package chunkrelay.envelope.rollups;

import chunkrelay.storage.RollupObjects;
import chunkrelay.storage.RollupTier;
import chunkrelay.storage.TimeBuckets;
import chunkrelay.translate.view.Rollup;
import chunkrelay.translate.view.RollupCodec;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The partials of the open minutes shared between replicas through the bucket ({@link RollupObjects.OpenPart}): each
 * replica writes its own partial of each open minute when it changed, and reads the others' when a query needs the
 * minute, keeping what it decoded until the part is replaced. So a chunk derived by any replica is answered from a
 * partial, not read whole, a share interval after it was derived. A replica's parts outlive it: a stopped relay's
 * last parts name exactly what it derived, its stop included, so the relay that follows it (under a new name) answers
 * the open minutes from them at once. Whoever forgets a minute removes the parts other replicas left of it, once the
 * minute's rollup exists; a starting relay looks for the parts left in the bucket so that it removes those too.
 * Thread-safe.
 */
final class SharedOpenMinutes {
    /** This process's name among the replicas sharing the bucket. */
    private final String replica = UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    private final RollupObjects objects;
    /** Own parts written: by minute, the part and the minute's change count when it was written. */
    private final Map<OpenMinute.Key, Written> written = new ConcurrentHashMap<>();
    /** Others' parts decoded, by replica and minute, with what they hold on the heap. */
    private final Map<PartOf, Decoded> decoded = new ConcurrentHashMap<>();
    /** Minutes with parts of other replicas (listed by a query or at start), to remove them once rolled up. */
    private final Set<OpenMinute.Key> othersSeen = ConcurrentHashMap.newKeySet();

    private record PartOf(OpenMinute.Key minute, String replica) {
    }

    private record Written(RollupObjects.OpenPart part, long changes) {
    }

    private record Decoded(RollupObjects.OpenPart part, OpenMinute.Partial content, long heapBytes) {
    }

    SharedOpenMinutes(RollupObjects objects) {
        this.objects = objects;
    }

    String replica() {
        return replica;
    }

    /** Writes this replica's partial of a minute when it changed since the last write, then removes the older one. */
    void share(OpenMinute.Key at, OpenMinute.Folded folded) {
        Written last = written.get(at);
        if (last != null && last.changes() == folded.changes()) {
            return;
        }
        RollupObjects.OpenPart part = new RollupObjects.OpenPart(at.project(), at.minute(), replica,
                last == null ? 1 : last.part().sequence() + 1);
        objects.write(part, encode(folded.partial()));
        written.put(at, new Written(part, folded.changes()));
        if (last != null) {
            objects.remove(last.part());
        }
    }

    /**
     * Removes this replica's part of a minute that settled, and forgets the others' parts of it; removes those too
     * when the minute's rollup exists (a query reads that instead), since a stopped or dead replica's parts are
     * removed by no one else.
     */
    void forget(OpenMinute.Key minute) {
        Written last = written.remove(minute);
        if (last != null) {
            objects.remove(last.part());
        }
        decoded.keySet().removeIf(k -> k.minute().equals(minute));
        othersSeen.remove(minute);
        LocalDate day = TimeBuckets.dayOf(minute.minute());
        String name = TimeBuckets.name(RollupTier.MINUTE, minute.minute());
        List<RollupObjects.OpenPart> left = objects.openParts(minute.project(), day, name).stream()
                .filter(part -> !part.replica().equals(replica)).toList();
        if (!left.isEmpty()
                && objects.newest(minute.project(), day, RollupTier.MINUTE, name).containsKey(minute.minute())) {
            left.forEach(objects::remove);
        }
    }

    /** Notes the minutes of the parts other replicas left in the given projects' days: one listing per day. */
    void lookForLeftParts(Collection<String> projects, Collection<LocalDate> days) {
        for (String project : projects) {
            for (LocalDate day : days) {
                for (RollupObjects.OpenPart part : objects.openParts(project, day, "")) {
                    if (!part.replica().equals(replica)) {
                        othersSeen.add(new OpenMinute.Key(project, part.minuteNanos()));
                    }
                }
            }
        }
    }

    /** The minutes other replicas have parts of, as far as this one has seen. */
    Set<OpenMinute.Key> othersSeen() {
        return Set.copyOf(othersSeen);
    }

    /**
     * The other replicas' newest parts of a minute: one listing, and a read of each part not decoded before;
     * {@code cacheBudget} says how many bytes may be kept decoded beyond this query, asked only when a part is read.
     */
    List<OpenMinute.Partial> others(OpenMinute.Key minute, LongSupplier cacheBudget) {
        List<OpenMinute.Partial> parts = new ArrayList<>();
        for (RollupObjects.OpenPart part : objects.openParts(minute.project(), minute.minute()).values()) {
            if (part.replica().equals(replica)) {
                continue;
            }
            othersSeen.add(minute);
            PartOf key = new PartOf(minute, part.replica());
            Decoded known = decoded.get(key);
            if (known != null && known.part().equals(part)) {
                parts.add(known.content());
                continue;
            }
            // a part replaced since it was listed is skipped: its chunks are read whole, which is exact
            Optional<OpenMinute.Partial> read = objects.read(part).flatMap(SharedOpenMinutes::decode);
            if (read.isPresent()) {
                parts.add(read.get());
                long bytes = read.get().heapBytes();
                if (bytes <= cacheBudget.getAsLong()) {
                    decoded.put(key, new Decoded(part, read.get(), bytes));
                } else {
                    decoded.remove(key);
                }
            }
        }
        return parts;
    }

    /** What the decoded parts of other replicas hold on the heap. */
    long decodedBytes() {
        return decoded.values().stream().mapToLong(Decoded::heapBytes).sum();
    }

    /** A part: how many rollups, each as {@link RollupCodec} writes it, then the names of the chunks waiting. */
    static byte[] encode(OpenMinute.Partial part) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            DataOutputStream out = new DataOutputStream(bytes);
            out.writeInt(part.rollups().size());
            for (Rollup rollup : part.rollups()) {
                byte[] encoded = RollupCodec.write(rollup);
                out.writeInt(encoded.length);
                out.write(encoded);
            }
            out.writeInt(part.waiting().size());
            for (String name : part.waiting()) {
                out.writeUTF(name);
            }
            out.flush();
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A part as written; empty for one that does not decode (another version's, or damaged): read its chunks. */
    static Optional<OpenMinute.Partial> decode(byte[] bytes) {
        try {
            DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
            int count = in.readInt();
            List<Rollup> rollups = new ArrayList<>(Math.min(count, 1024));
            for (int i = 0; i < count; i++) {
                byte[] rollup = new byte[in.readInt()];
                in.readFully(rollup);
                rollups.add(RollupCodec.read(rollup));
            }
            int waiting = in.readInt();
            Set<String> names = new HashSet<>();
            for (int i = 0; i < waiting; i++) {
                names.add(in.readUTF());
            }
            if (in.read() != -1) {
                throw new IOException("bytes after the part");
            }
            return Optional.of(new OpenMinute.Partial(List.copyOf(rollups), Set.copyOf(names)));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }
}
