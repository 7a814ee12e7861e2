package chunkrelay.bench;

import chunkrelay.envelope.views.RangeReader;
import chunkrelay.storage.RollupTier;
import chunkrelay.storage.TimeBuckets;
import chunkrelay.translate.view.MergedProfile;
import chunkrelay.translate.view.PprofWriter;
import chunkrelay.translate.view.ViewFilter;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import static chunkrelay.storage.TimeBuckets.nanos;

/**
 * The views' merge of a range (RangeReader.merge, then the pprof answer written) in this process over a
 * {@link FleetArchive}: its cost against the range's length (10 minutes to 7 days of a 20-process fleet), against
 * the raw path (the same merge reading every chunk whole) where that can run, and for one 5-minute range against the
 * volume of the day around it; with every answer's sample count checked against the minute rollups' own counts.
 */
final class FleetQueryCost {
    /** The hour ingested: a Monday noon, so that the week before it holds six whole days. */
    static final Instant HOUR = Instant.parse("2026-11-16T12:00:00Z");
    /**
     * Hours of the range's day besides the ingested one whose index is filled for the day-volume row: each
     * holds about 8 600 entries, and the embedded store writes some 500 empty objects a second.
     */
    private static final int INDEX_HOURS = 6;
    private static final int JIT_WARM_UP_MERGES = 10;
    private static final int WARM_UP_ROUNDS = 2;
    private static final int ROUNDS = 5;
    private static final int RAW_ROUNDS = 3;
    private static final long SECOND = 1_000_000_000L;
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final MemoryMXBean MEMORY = ManagementFactory.getMemoryMXBean();

    /** One range's merge: median wall and CPU of the calling thread, what it read, its samples. */
    record Cost(double wallMillis, double cpuMillis, int rollupsRead, int chunksRead, long samples) {
    }

    /** One row: a range, its cost from rollups and, where it ran, from the chunks alone. */
    record Row(String range, Cost rollups, Cost raw) {
    }

    record Result(int chunks, double ingestSeconds, double buildSeconds, double copySeconds, List<Row> lengths,
                  List<Row> dayVolume, long[] minuteBytes, long[] hourBytes, long[] dayBytes, long weekHeapBytes,
                  int weekGroups, List<FleetFunctionCost.Row> functions) {
    }

    private final FleetArchive fleet;
    private final long hour;
    private long[] minuteSamples;

    private FleetQueryCost(FleetArchive fleet) {
        this.fleet = fleet;
        this.hour = fleet.hour;
    }

    static Result measure() throws Exception {
        Path directory = Files.createTempDirectory("chunk-relay-fleet-query-");
        try (FleetArchive fleet = new FleetArchive(directory, nanos(HOUR))) {
            return new FleetQueryCost(fleet).run();
        } finally {
            BenchmarkSuite.deleteTree(directory);
        }
    }

    private Result run() throws Exception {
        long started = System.nanoTime();
        int chunks = fleet.ingestHour();
        long ingested = System.nanoTime();
        fleet.buildHour();
        long built = System.nanoTime();
        minuteSamples = fleet.minuteSamples();

        // a fixed 5-minute range, first with its day holding the ingested hour alone
        long fiveFrom = hour + 20 * FleetArchive.MINUTE + 15 * SECOND;
        long fiveTo = fiveFrom + 5 * FleetArchive.MINUTE;
        // the JVM's first merges are its JIT's: compile both paths first, or the baseline row would be the slowest
        for (int round = 0; round < JIT_WARM_UP_MERGES; round++) {
            merge(fleet.reader(true), fiveFrom, fiveTo);
            merge(fleet.reader(false), fiveFrom, fiveTo);
        }
        List<Row> volume = new ArrayList<>();
        volume.add(row("day holds 1 h (the range's hour)", fiveFrom, fiveTo, true));

        // the week before the hour: hour rollups of every hour, day rollups of its whole days, and the minute
        // rollups of every other hour of the range's day
        long copyStart = System.nanoTime();
        for (int back = 1; back <= 7 * 24; back++) {
            fleet.copyHour(-back * FleetArchive.HOUR);
        }
        long day = TimeBuckets.bucketOf(RollupTier.DAY, hour);
        for (long other = day; other < day + FleetArchive.DAY; other += FleetArchive.HOUR) {
            if (other != hour) {
                fleet.copyMinutes(other - hour);
                if (other > hour) {
                    fleet.copyHour(other - hour);
                }
            }
        }
        for (long d = day - 7 * FleetArchive.DAY; d <= day; d += FleetArchive.DAY) {
            fleet.buildDay(d);
        }
        double copySeconds = (System.nanoTime() - copyStart) / 1e9;
        volume.add(row("+ 24 h of minute rollups, a week of hours, days", fiveFrom, fiveTo, true));

        // the lengths end half a minute before the hour's end: a ragged edge read from its chunks
        long to = hour + FleetArchive.HOUR - 30 * SECOND;
        List<Row> lengths = new ArrayList<>();
        lengths.add(row("10 minutes", to - 10 * FleetArchive.MINUTE, to, true));
        lengths.add(row("1 hour", to - FleetArchive.HOUR, to, true));
        lengths.add(row("1 day", to - FleetArchive.DAY, to, false));
        lengths.add(row("7 days", to - 7 * FleetArchive.DAY, to, false));
        long[] week = weekHeap(to - 7 * FleetArchive.DAY, to);
        List<FleetFunctionCost.Row> functions = new ArrayList<>();
        for (Row row : lengths) {
            long length = switch (row.range()) {
                case "10 minutes" -> 10 * FleetArchive.MINUTE;
                case "1 hour" -> FleetArchive.HOUR;
                case "1 day" -> FleetArchive.DAY;
                default -> 7 * FleetArchive.DAY;
            };
            functions.add(FleetFunctionCost.row(row.range(), fleet.reader(true), to - length, to, row.rollups()));
        }
        System.err.printf(Locale.ROOT, "[bench fleet-queries] ingest %.1f s, build %.1f s, copies %.1f s, week"
                + " heap %d bytes%n", (ingested - started) / 1e9, (built - ingested) / 1e9, copySeconds, week[0]);

        // the range's day fuller of chunks: the index of the hours before the ingested one as full as its own
        int entries = 0;
        for (int back = 1; back <= INDEX_HOURS; back++) {
            entries += fleet.copyIndex(-back * FleetArchive.HOUR);
        }
        volume.add(row(String.format(Locale.ROOT, "+ %d index entries, %d h before", entries, INDEX_HOURS),
                fiveFrom, fiveTo, true));
        return new Result(chunks, (ingested - started) / 1e9, (built - ingested) / 1e9, copySeconds, lengths,
                volume, fleet.rollupBytes(RollupTier.MINUTE, hour), fleet.rollupBytes(RollupTier.HOUR, hour),
                fleet.rollupBytes(RollupTier.DAY, day - FleetArchive.DAY), week[0], (int) week[1], functions);
    }

    /**
     * A range merged from rollups and, where {@code raw}, from its chunks alone; both must give the samples the
     * minute rollups and the edges' chunks hold.
     */
    private Row row(String label, long from, long to, boolean raw) {
        long expected = expected(from, to);
        Cost rollups = cost(fleet.reader(true), from, to, ROUNDS);
        check(label + ", from rollups", rollups.samples(), expected);
        Cost chunks = null;
        if (raw) {
            chunks = cost(fleet.reader(false), from, to, RAW_ROUNDS);
            check(label + ", from chunks", chunks.samples(), expected);
        }
        Row row = new Row(label, rollups, chunks);
        System.err.println("[bench fleet-queries] " + label + ": " + row);
        return row;
    }

    /**
     * The samples a range must hold: those of its whole minutes, from the ingested hour's minute rollups (every
     * copied hour holds the same), plus its ragged edges read from the chunks by the raw path.
     */
    private long expected(long from, long to) {
        long firstWhole = TimeBuckets.firstBucketFrom(RollupTier.MINUTE, from);
        long lastWhole = TimeBuckets.minuteOf(to);
        long samples = 0;
        for (long minute = firstWhole; minute < lastWhole; minute += FleetArchive.MINUTE) {
            if (minute >= hour - 7 * FleetArchive.DAY && minute < hour + FleetArchive.HOUR) {
                samples += minuteSamples[(int) (Math.floorMod(minute - hour, FleetArchive.HOUR)
                        / FleetArchive.MINUTE)];
            }
        }
        RangeReader raw = fleet.reader(false);
        return samples + rawSamples(raw, from, firstWhole) + rawSamples(raw, lastWhole, to);
    }

    private static void check(String what, long samples, long expected) {
        if (samples != expected) {
            throw new IllegalStateException(what + ": " + samples + " samples, expected " + expected + " (off by "
                    + (samples - expected) + ")");
        }
    }

    /** Median of rounds of one merge and its pprof answer, after rounds that warm up and are dropped. */
    private static Cost cost(RangeReader reader, long from, long to, int rounds) {
        double[] wall = new double[rounds];
        double[] cpu = new double[rounds];
        RangeReader.Answer answer = null;
        for (int round = -WARM_UP_ROUNDS; round < rounds; round++) {
            long cpuStart = THREADS.getCurrentThreadCpuTime();
            long wallStart = System.nanoTime();
            answer = merge(reader, from, to);
            writePprof(answer.profile());
            if (round >= 0) {
                wall[round] = (System.nanoTime() - wallStart) / 1e6;
                cpu[round] = (THREADS.getCurrentThreadCpuTime() - cpuStart) / 1e6;
            }
        }
        return new Cost(Medians.of(wall), Medians.of(cpu), answer.rollupsRead(), answer.chunksRead(),
                answer.profile().sampleCount());
    }

    private static long rawSamples(RangeReader raw, long from, long to) {
        return from < to ? merge(raw, from, to).profile().sampleCount() : 0;
    }

    private static RangeReader.Answer merge(RangeReader reader, long from, long to) {
        return reader.merge(Long.parseLong(FleetArchive.PROJECT), ViewFilter.between(from, to), null);
    }

    /** The heap a week's answer holds once merged (after full collections), and its sample groups. */
    private long[] weekHeap(long from, long to) {
        RangeReader reader = fleet.reader(true);
        long before = usedAfterGc();
        MergedProfile week = merge(reader, from, to).profile();
        long after = usedAfterGc();
        return new long[] {after - before, week.samples().size()};
    }

    private static long usedAfterGc() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return MEMORY.getHeapMemoryUsage().getUsed();
    }

    private static void writePprof(MergedProfile profile) {
        try {
            PprofWriter.write(profile, OutputStream.nullOutputStream());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The lines the report prints. */
    static List<String> lines(Result r) {
        List<String> lines = new ArrayList<>();
        lines.add(String.format(Locale.ROOT, "fleet: %d synthetic chunks (20 profilers x 1 h) ingested in %.1f s,"
                + " its 60 minute rollups and hour rollup built in %.1f s; the week's copies written in %.1f s",
                r.chunks(), r.ingestSeconds(), r.buildSeconds(), r.copySeconds()));
        lines.add(String.format(Locale.ROOT, "%-48s %9s %9s %8s %7s | %9s %9s %7s | %7s %7s", "range",
                "wall ms", "CPU ms", "rollups", "chunks", "raw wall", "raw CPU", "chunks", "x wall", "x CPU"));
        rows(lines, r.lengths(), false);
        lines.add("the same 5 minutes (20 past the hour, ragged), against the volume of the day around it"
                + " (x = against the first row):");
        rows(lines, r.dayVolume(), true);
        lines.add(String.format(Locale.ROOT, "rollup objects, bytes as encoded / as stored (zstd): minute %d / %d,"
                        + " hour %d / %d, day %d / %d", r.minuteBytes()[0], r.minuteBytes()[1], r.hourBytes()[0],
                r.hourBytes()[1], r.dayBytes()[0], r.dayBytes()[1]));
        lines.add(String.format(Locale.ROOT, "a week's answer holds %.1f MiB of heap after the merge (%d sample"
                + " groups), not its %d chunks", r.weekHeapBytes() / 1048576.0, r.weekGroups(),
                r.chunks() * 24L * 7));
        lines.addAll(FleetFunctionCost.lines(r.functions()));
        return lines;
    }

    private static void rows(List<String> lines, List<Row> rows, boolean againstFirst) {
        Cost first = rows.get(0).rollups();
        for (Row row : rows) {
            Cost c = row.rollups();
            Cost base = againstFirst ? first : row.raw();
            String raw = row.raw() == null || againstFirst
                    ? String.format(Locale.ROOT, "%9s %9s %7s", "-", "-", "-")
                    : String.format(Locale.ROOT, "%9.1f %9.1f %7d", row.raw().wallMillis(), row.raw().cpuMillis(),
                    row.raw().chunksRead());
            String ratio = base == null ? String.format(Locale.ROOT, "%7s %7s", "n/a", "n/a")
                    : String.format(Locale.ROOT, "%7.3f %7.3f", c.wallMillis() / base.wallMillis(),
                    c.cpuMillis() / base.cpuMillis());
            lines.add(String.format(Locale.ROOT, "%-48s %9.1f %9.1f %8d %7d | %s | %s", row.range(),
                    c.wallMillis(), c.cpuMillis(), c.rollupsRead(), c.chunksRead(), raw, ratio));
        }
    }
}
