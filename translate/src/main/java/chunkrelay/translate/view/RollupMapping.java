package chunkrelay.translate.view;

import chunkrelay.chunk.primitive.IndexRemap;

import java.util.Map;

/**
 * The mapping of one rollup's tables into the merged tables, each entry on first use: the whole rollup, or the run of
 * its steps within a window when it is split per step; its frames by {@link FrameRemap}. Not thread-safe.
 */
final class RollupMapping {
    /** The merged thread of a thread the filter leaves out. */
    private static final int LEFT_OUT = -2;

    private final MergedTables tables;
    private final ViewFilter filter;
    private final TimeGrid grid;
    private final MergedProfile part;
    private final FrameRemap frames;
    private final IndexRemap threadOf;
    private final IndexRemap linkOf;
    private final long fromNanos;
    private final long toNanos;

    /** The whole of a rollup. */
    RollupMapping(MergedTables tables, MergedProfile part) {
        this(tables, part, Long.MIN_VALUE, Long.MAX_VALUE);
    }

    /**
     * The samples of {@code [fromNanos, toNanos)} of a rollup; a window narrower than the rollup takes whole steps of
     * a rollup split per step ({@link MergedProfile#perStep()}), which the caller checks.
     */
    RollupMapping(MergedTables tables, MergedProfile part, long fromNanos, long toNanos) {
        this.tables = tables;
        this.fromNanos = fromNanos;
        this.toNanos = toNanos;
        this.filter = tables.filter();
        this.grid = tables.grid();
        this.part = part;
        this.frames = new FrameRemap(tables, new FrameSource.Profile(part), false);
        this.threadOf = new IndexRemap(part.threads.size());
        this.linkOf = new IndexRemap(part.links.size());
    }

    void add() {
        if (filter.keepsWholeRange()) {
            // a rollup's groups are mostly those of the rollups merged with it: room for them all at once
            tables.expectGroups(part.samples.size());
        }
        addChunkCounts();
        SampleSteps steps = part.steps;
        int firstStep = steps == null ? 0 : firstStepFrom(fromNanos);
        int endStep = steps == null ? 0 : firstStepFrom(toNanos);
        for (int g = 0; g < part.samples.size(); g++) {
            MergedProfile.SampleGroup group = part.samples.get(g);
            int from = steps == null ? 0 : firstEntryFrom(steps, g, steps.from(g), firstStep);
            int to = steps == null ? 0 : firstEntryFrom(steps, g, from, endStep);
            boolean inWindow = steps == null ? group.firstNanos() >= fromNanos && group.firstNanos() < toNanos
                    : from < to;
            if (!inWindow) {
                continue;
            }
            int thread = thread(group.thread());
            if (thread < 0) {
                continue;
            }
            int link = group.link() < 0 ? -1 : link(group.link());
            if (filter.byLink() && !tables.linkMatches(link)) {
                continue;
            }
            int merged = tables.group(frames.stack(group.stack(), group.periodType()), thread, link,
                    group.periodType(), group.periodNanos());
            if (steps == null || (!tables.perStep() && from == steps.from(g) && to == steps.to(g))) {
                tables.addSamples(merged, group.count(), group.firstNanos(), group.lastNanos());
            } else if (tables.perStep()) {
                for (int entry = from; entry < to; entry++) {
                    tables.addSamples(merged, steps.count(entry), steps.firstNanos(entry, part.grid),
                            steps.lastNanos(entry, part.grid));
                }
            } else {
                addRun(merged, steps, from, to);
            }
        }
        if (grid != null) {
            for (int t = 0; t < part.threads.size(); t++) {
                if (threadOf.get(t) >= 0) {
                    addSteps(part.stepCounts.get(t), tables.stepCounts(threadOf.get(t)));
                }
            }
        }
    }

    /** The first step of the part's grid that starts at or after {@code nanos}. */
    private int firstStepFrom(long nanos) {
        TimeGrid ticks = part.grid;
        if (nanos <= ticks.originNanos()) {
            return 0;
        }
        long offset = nanos - ticks.originNanos();
        long step = offset / ticks.stepNanos() + (offset % ticks.stepNanos() == 0 ? 0 : 1);
        return (int) Math.min(Integer.MAX_VALUE, step);
    }

    /**
     * A group's first entry from {@code entry} on whose step is {@code step} or later (its entries are sorted by
     * step); the entry after its last when there is none. A whole rollup's window costs two reads per group.
     */
    private static int firstEntryFrom(SampleSteps steps, int group, int entry, int step) {
        int end = steps.to(group);
        if (entry == end || steps.step(end - 1) < step) {
            return end;
        }
        while (steps.step(entry) < step) {
            entry++;
        }
        return entry;
    }

    /** A run of a group's steps added to tables that are not split: one add, of their sum and bounds. */
    private void addRun(int merged, SampleSteps steps, int from, int to) {
        long count = 0;
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        for (int entry = from; entry < to; entry++) {
            count += steps.count(entry);
            first = Math.min(first, steps.firstNanos(entry, part.grid));
            last = Math.max(last, steps.lastNanos(entry, part.grid));
        }
        tables.addSamples(merged, count, first, last);
    }

    /** The chunks the window holds, per step of their first sample when the rollup is split so. */
    private void addChunkCounts() {
        if (!part.perStep) {
            for (Map.Entry<ChunkAttributes, Long> chunks : part.chunkCounts.entrySet()) {
                if (chunks.getKey().passes(filter)) {
                    tables.countChunk(chunks.getKey(), chunks.getValue(), part.grid.originNanos());
                }
            }
            return;
        }
        TimeGrid ticks = part.grid;
        for (Map.Entry<ChunkAttributes, long[]> chunks : part.chunkStepCounts.entrySet()) {
            if (!chunks.getKey().passes(filter)) {
                continue;
            }
            for (int tick = 0; tick < ticks.steps(); tick++) {
                long start = ticks.originNanos() + tick * ticks.stepNanos();
                if (chunks.getValue()[tick] != 0 && start >= fromNanos && start < toNanos) {
                    tables.countChunk(chunks.getKey(), chunks.getValue()[tick], start);
                }
            }
        }
    }

    private void addSteps(long[] ticks, long[] steps) {
        TimeGrid ticksGrid = part.grid;
        for (int tick = 0; tick < ticks.length; tick++) {
            long start = ticksGrid.originNanos() + tick * ticksGrid.stepNanos();
            if (ticks[tick] != 0 && start >= fromNanos && start < toNanos) {
                int step = grid.stepOf(start);
                if (step >= 0) {
                    steps[step] += ticks[tick];
                }
            }
        }
    }

    /** The merged thread of a rollup's thread, or -1 when the filter leaves it out. */
    private int thread(int index) {
        int known = threadOf.get(index);
        if (known == IndexRemap.UNMAPPED) {
            MergedProfile.Thread thread = part.threads.get(index);
            ChunkAttributes chunk = thread.chunk() != null ? thread.chunk()
                    : new ChunkAttributes(thread.profilerId(), null, null, null);
            boolean kept = chunk.passes(filter)
                    && (filter.threadId() == null || filter.threadId().equals(thread.threadId()));
            known = threadOf.set(index, kept ? tables.thread(thread) : LEFT_OUT);
        }
        return known == LEFT_OUT ? -1 : known;
    }

    private int link(int index) {
        int known = linkOf.get(index);
        return known != IndexRemap.UNMAPPED ? known : linkOf.set(index, tables.link(part.links.get(index)));
    }
}
