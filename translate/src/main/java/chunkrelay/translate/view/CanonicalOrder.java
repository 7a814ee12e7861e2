package chunkrelay.translate.view;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * A merged profile with its tables sorted by content (functions by name, system name and file; locations by address
 * and lines; stacks, threads, links and sample groups likewise): two merges of the same samples in any order, from
 * chunks or from rollups, come out identical, and so does every export written from them.
 */
final class CanonicalOrder {
    private static final Comparator<String> TEXT = Comparator.nullsFirst(Comparator.naturalOrder());
    private static final Comparator<ChunkAttributes> CHUNK = Comparator.nullsFirst(Comparator.naturalOrder());

    private CanonicalOrder() {
    }

    static MergedProfile of(MergedProfile in) {
        MergedProfile out = new MergedProfile();
        out.grid = in.grid;
        out.periodNanos = in.periodNanos;
        out.startNanos = in.startNanos;
        out.lastSampleNanos = in.lastSampleNanos;
        out.endNanos = in.endNanos;
        out.chunkCounts.putAll(in.chunkCounts);
        out.perStep = in.perStep;
        out.chunkStepCounts.putAll(in.chunkStepCounts);

        int[] functionOrder = order(in.functions.size(), Comparator.comparing(
                (Integer f) -> in.functions.get(f).name(), TEXT)
                .thenComparing(f -> in.functions.get(f).systemName(), TEXT)
                .thenComparing(f -> in.functions.get(f).file(), TEXT));
        int[] functionIndex = inverse(functionOrder);
        for (int f : functionOrder) {
            out.functions.add(in.functions.get(f));
        }

        List<MergedProfile.Location> relined = new ArrayList<>(in.locations.size());
        for (MergedProfile.Location location : in.locations) {
            List<MergedProfile.Line> lines = new ArrayList<>(location.lines().size());
            for (MergedProfile.Line line : location.lines()) {
                lines.add(new MergedProfile.Line(functionIndex[line.function()], line.line()));
            }
            relined.add(new MergedProfile.Location(location.address(), List.copyOf(lines)));
        }
        int[] locationOrder = order(relined.size(), (a, b) -> compareLocations(relined.get(a), relined.get(b)));
        int[] locationIndex = inverse(locationOrder);
        for (int l : locationOrder) {
            out.locations.add(relined.get(l));
        }

        List<int[]> restacked = new ArrayList<>(in.stacks.size());
        for (int[] stack : in.stacks) {
            int[] mapped = new int[stack.length];
            for (int i = 0; i < stack.length; i++) {
                mapped[i] = locationIndex[stack[i]];
            }
            restacked.add(mapped);
        }
        int[] stackOrder = order(restacked.size(), (a, b) -> Arrays.compare(restacked.get(a), restacked.get(b)));
        int[] stackIndex = inverse(stackOrder);
        for (int s : stackOrder) {
            out.stacks.add(restacked.get(s));
        }

        int[] threadOrder = order(in.threads.size(), Comparator.comparing(
                (Integer t) -> in.threads.get(t).profilerId(), TEXT)
                .thenComparing(t -> in.threads.get(t).threadId(), TEXT)
                .thenComparing(t -> in.threads.get(t).name(), TEXT)
                .thenComparing(t -> in.threads.get(t).chunk(), CHUNK));
        int[] threadIndex = inverse(threadOrder);
        for (int t : threadOrder) {
            out.threads.add(in.threads.get(t));
            if (in.grid != null) {
                out.stepCounts.add(in.stepCounts.get(t));
            }
        }

        int[] linkOrder = order(in.links.size(), Comparator.comparing((Integer k) -> in.links.get(k).traceId())
                .thenComparing(k -> in.links.get(k).spanId()));
        int[] linkIndex = inverse(linkOrder);
        for (int k : linkOrder) {
            out.links.add(in.links.get(k));
        }

        List<MergedProfile.SampleGroup> regrouped = new ArrayList<>(in.samples.size());
        for (MergedProfile.SampleGroup group : in.samples) {
            regrouped.add(new MergedProfile.SampleGroup(stackIndex[group.stack()], threadIndex[group.thread()],
                    group.link() < 0 ? -1 : linkIndex[group.link()], group.periodType(), group.periodNanos(),
                    group.count(), group.firstNanos(), group.lastNanos()));
        }
        Comparator<MergedProfile.SampleGroup> byKey = Comparator.comparingInt(MergedProfile.SampleGroup::stack)
                .thenComparingInt(MergedProfile.SampleGroup::thread)
                .thenComparingInt(MergedProfile.SampleGroup::link)
                .thenComparing(MergedProfile.SampleGroup::periodType)
                .thenComparingLong(MergedProfile.SampleGroup::periodNanos);
        int[] groupOrder = order(regrouped.size(), (a, b) -> byKey.compare(regrouped.get(a), regrouped.get(b)));
        for (int g : groupOrder) {
            out.samples.add(regrouped.get(g));
        }
        // split per step, each group's steps move with it
        out.steps = in.steps == null ? null : in.steps.reordered(groupOrder);
        return out;
    }

    private static int compareLocations(MergedProfile.Location a, MergedProfile.Location b) {
        int byAddress = Long.compare(a.address(), b.address());
        if (byAddress != 0) {
            return byAddress;
        }
        int lines = Math.min(a.lines().size(), b.lines().size());
        for (int i = 0; i < lines; i++) {
            MergedProfile.Line x = a.lines().get(i);
            MergedProfile.Line y = b.lines().get(i);
            int byLine = x.function() != y.function() ? Integer.compare(x.function(), y.function())
                    : Long.compare(x.line(), y.line());
            if (byLine != 0) {
                return byLine;
            }
        }
        return Integer.compare(a.lines().size(), b.lines().size());
    }

    /** The indices {@code 0..size-1} sorted by {@code comparator}. */
    private static int[] order(int size, Comparator<Integer> comparator) {
        Integer[] boxed = new Integer[size];
        for (int i = 0; i < size; i++) {
            boxed[i] = i;
        }
        Arrays.sort(boxed, comparator);
        int[] order = new int[size];
        for (int i = 0; i < size; i++) {
            order[i] = boxed[i];
        }
        return order;
    }

    /** For each old index, its position in {@code order}. */
    private static int[] inverse(int[] order) {
        int[] index = new int[order.length];
        for (int position = 0; position < order.length; position++) {
            index[order[position]] = position;
        }
        return index;
    }
}
