package chunkrelay.translate.view;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The mapping of one rollup's tables into the merged tables, each entry on first use. Not thread-safe. */
final class RollupMapping {
    private final MergedTables tables;
    private final ViewFilter filter;
    private final TimeGrid grid;
    private final MergedProfile part;
    private final int[] stackOf;
    private final int[] locationOf;
    private final int[] functionOf;
    private final int[] threadOf;
    private final int[] linkOf;

    RollupMapping(MergedTables tables, MergedProfile part) {
        this.tables = tables;
        this.filter = tables.filter();
        this.grid = tables.grid();
        this.part = part;
        this.stackOf = MergedTables.unmapped(part.stacks.size());
        this.locationOf = MergedTables.unmapped(part.locations.size());
        this.functionOf = MergedTables.unmapped(part.functions.size());
        this.threadOf = MergedTables.unmapped(part.threads.size());
        this.linkOf = MergedTables.unmapped(part.links.size());
    }

    void add() {
        for (Map.Entry<ChunkAttributes, Long> chunks : part.chunkCounts.entrySet()) {
            if (chunks.getKey().passes(filter)) {
                tables.countChunk(chunks.getKey(), chunks.getValue());
            }
        }
        for (MergedProfile.SampleGroup group : part.samples) {
            int thread = thread(group.thread());
            if (thread < 0) {
                continue;
            }
            int link = group.link() < 0 ? -1 : link(group.link());
            if (filter.byLink() && !tables.linkMatches(link)) {
                continue;
            }
            tables.addSamples(stack(group.stack()), thread, link, group.periodType(), group.periodNanos(),
                    group.count(), group.firstNanos(), group.lastNanos());
        }
        if (grid != null) {
            for (int t = 0; t < part.threads.size(); t++) {
                if (threadOf[t] >= 0) {
                    addSteps(part.stepCounts.get(t), tables.stepCounts(threadOf[t]));
                }
            }
        }
    }

    private void addSteps(long[] ticks, long[] steps) {
        TimeGrid ticksGrid = part.grid;
        for (int tick = 0; tick < ticks.length; tick++) {
            if (ticks[tick] != 0) {
                int step = grid.stepOf(ticksGrid.originNanos() + tick * ticksGrid.stepNanos());
                if (step >= 0) {
                    steps[step] += ticks[tick];
                }
            }
        }
    }

    /** The merged thread of a rollup's thread, or -1 when the filter leaves it out. */
    private int thread(int index) {
        if (threadOf[index] == -1) {
            MergedProfile.Thread thread = part.threads.get(index);
            ChunkAttributes chunk = thread.chunk() != null ? thread.chunk()
                    : new ChunkAttributes(thread.profilerId(), null, null, null);
            boolean kept = chunk.passes(filter)
                    && (filter.threadId() == null || filter.threadId().equals(thread.threadId()));
            threadOf[index] = kept ? tables.thread(thread) : -2;
        }
        return threadOf[index] < 0 ? -1 : threadOf[index];
    }

    private int link(int index) {
        if (linkOf[index] == -1) {
            linkOf[index] = tables.link(part.links.get(index));
        }
        return linkOf[index];
    }

    private int stack(int index) {
        if (stackOf[index] == -1) {
            int[] partLocations = part.stacks.get(index);
            int[] mapped = new int[partLocations.length];
            for (int i = 0; i < mapped.length; i++) {
                mapped[i] = location(partLocations[i]);
            }
            stackOf[index] = tables.stack(mapped);
        }
        return stackOf[index];
    }

    private int location(int index) {
        if (locationOf[index] == -1) {
            MergedProfile.Location location = part.locations.get(index);
            List<MergedProfile.Line> lines = new ArrayList<>(location.lines().size());
            for (MergedProfile.Line line : location.lines()) {
                lines.add(new MergedProfile.Line(function(line.function()), line.line()));
            }
            locationOf[index] = tables.location(
                    new MergedProfile.Location(location.address(), List.copyOf(lines)));
        }
        return locationOf[index];
    }

    private int function(int index) {
        if (functionOf[index] == -1) {
            functionOf[index] = tables.function(part.functions.get(index));
        }
        return functionOf[index];
    }
}
