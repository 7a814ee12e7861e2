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

        int[] functionOrder = IndexOrder.sorted(in.functions.size(),
                (a, b) -> compareFunctions(in.functions.get(a), in.functions.get(b)));
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
        int[] locationOrder = IndexOrder.sorted(relined.size(),
                (a, b) -> compareLocations(relined.get(a), relined.get(b)));
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
        int[] stackOrder = IndexOrder.sorted(restacked.size(),
                (a, b) -> Arrays.compare(restacked.get(a), restacked.get(b)));
        int[] stackIndex = inverse(stackOrder);
        for (int s : stackOrder) {
            out.stacks.add(restacked.get(s));
        }

        int[] threadOrder = IndexOrder.sorted(in.threads.size(),
                (a, b) -> compareThreads(in.threads.get(a), in.threads.get(b)));
        int[] threadIndex = inverse(threadOrder);
        for (int t : threadOrder) {
            out.threads.add(in.threads.get(t));
            if (in.grid != null) {
                out.stepCounts.add(in.stepCounts.get(t));
            }
        }

        int[] linkOrder = IndexOrder.sorted(in.links.size(), (a, b) -> compareLinks(in.links.get(a),
                in.links.get(b)));
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
        int[] groupOrder = IndexOrder.sorted(regrouped.size(), new GroupKeys(regrouped)::compare);
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

    private static int compareFunctions(MergedProfile.Function a, MergedProfile.Function b) {
        int byName = TEXT.compare(a.name(), b.name());
        if (byName != 0) {
            return byName;
        }
        int bySystemName = TEXT.compare(a.systemName(), b.systemName());
        return bySystemName != 0 ? bySystemName : TEXT.compare(a.file(), b.file());
    }

    private static int compareThreads(MergedProfile.Thread a, MergedProfile.Thread b) {
        int byProfiler = TEXT.compare(a.profilerId(), b.profilerId());
        if (byProfiler != 0) {
            return byProfiler;
        }
        int byThread = TEXT.compare(a.threadId(), b.threadId());
        if (byThread != 0) {
            return byThread;
        }
        int byName = TEXT.compare(a.name(), b.name());
        return byName != 0 ? byName : CHUNK.compare(a.chunk(), b.chunk());
    }

    private static int compareLinks(MergedProfile.Link a, MergedProfile.Link b) {
        int byTrace = a.traceId().compareTo(b.traceId());
        return byTrace != 0 ? byTrace : a.spanId().compareTo(b.spanId());
    }

    /**
     * The sample groups' keys as columns, compared field by field (stack, thread, link, sample type, period): a
     * fleet's hour sorts hundreds of thousands of them.
     */
    private static final class GroupKeys {
        private final int[] stacks;
        private final int[] threads;
        private final int[] links;
        private final String[] periodTypes;
        private final long[] periods;

        GroupKeys(List<MergedProfile.SampleGroup> groups) {
            stacks = new int[groups.size()];
            threads = new int[groups.size()];
            links = new int[groups.size()];
            periodTypes = new String[groups.size()];
            periods = new long[groups.size()];
            for (int g = 0; g < groups.size(); g++) {
                MergedProfile.SampleGroup group = groups.get(g);
                stacks[g] = group.stack();
                threads[g] = group.thread();
                links[g] = group.link();
                periodTypes[g] = group.periodType();
                periods[g] = group.periodNanos();
            }
        }

        int compare(int a, int b) {
            if (stacks[a] != stacks[b]) {
                return Integer.compare(stacks[a], stacks[b]);
            }
            if (threads[a] != threads[b]) {
                return Integer.compare(threads[a], threads[b]);
            }
            if (links[a] != links[b]) {
                return Integer.compare(links[a], links[b]);
            }
            int byType = periodTypes[a].compareTo(periodTypes[b]);
            return byType != 0 ? byType : Long.compare(periods[a], periods[b]);
        }
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
