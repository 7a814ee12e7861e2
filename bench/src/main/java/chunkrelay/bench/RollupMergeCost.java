package chunkrelay.bench;

import chunkrelay.chunk.ChunkItemHeader;
import chunkrelay.chunk.ChunkOutcome;
import chunkrelay.chunk.ChunkProcessor;
import chunkrelay.chunk.ProfileChunk;
import chunkrelay.envelope.testing.FleetChunks;
import chunkrelay.storage.RollupTier;
import chunkrelay.translate.ChunkTranslator;
import chunkrelay.translate.TranslationContext;
import chunkrelay.translate.view.MergedProfile;
import chunkrelay.translate.view.PprofWriter;
import chunkrelay.translate.view.ProfileMerger;
import chunkrelay.translate.view.Rollup;
import chunkrelay.translate.view.RollupCodec;
import chunkrelay.translate.view.ViewFilter;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * How fast a settled hour of a large fleet merges from its rollups, in this process, with no store: the minute rollups
 * of an hour of {@link RangeFleet} (every chunk translated and merged into its minutes as the builder merges them, not
 * timed) and its ten-minute rollups made of them, held as bytes; then, per round, the hour's rollups decoded and
 * merged into an answer's merger (no grid, threads not split by chunk attributes, as a pprof answer merges them) and
 * its result taken, against the floor of decoding the same rollups alone. Two shapes: the 14 rollups an hour not on a
 * ten-minute boundary reads (9 minutes, 5 ten-minute rollups), and its 59 minute rollups. Wall time of the calling
 * thread, median of rounds after a warm-up. The answer's pprof bytes are hashed, so two builds can be checked to give
 * the same answer.
 *
 * <p>Run: {@code mvn -B -q -o -Pbench -pl bench -am verify -DskipTests -Dbench.only=merge}.
 */
final class RollupMergeCost {
    static final int PROCESSES = 200;
    static final int ROUNDS = 5;
    private static final long MINUTE = RangeFleet.MINUTE;

    /** One shape: its rollups, the floor (decode alone) and the merge (decode, merge, result), medians in ms. */
    record Row(String shape, int rollups, int bytes, double decodeMillis, double mergeMillis, long samples,
               String pprofSha256) {
        double ratio() {
            return mergeMillis / decodeMillis;
        }
    }

    record Result(int processes, double buildSeconds, List<Row> rows) {
    }

    private RollupMergeCost() {
    }

    static Result measure(int processes, int rounds) {
        long started = System.nanoTime();
        RangeFleet fleet = new RangeFleet(processes);
        // an hour on a ten-minute boundary, far from the epoch like a real one
        long hour = 1_700_002_800L * RangeFleet.SECOND;
        TreeMap<Long, byte[]> minutes = minutes(fleet, hour, hour + 60 * MINUTE);
        Map<Long, byte[]> tens = new TreeMap<>();
        for (long ten = hour; ten < hour + 60 * MINUTE; ten += 10 * MINUTE) {
            tens.put(ten, tenMinutes(minutes, ten));
        }
        double buildSeconds = (System.nanoTime() - started) / 1e9;
        long from = hour + MINUTE;
        long to = hour + 60 * MINUTE;
        List<byte[]> settled = new ArrayList<>();
        for (long minute = from; minute < hour + 10 * MINUTE; minute += MINUTE) {
            settled.add(minutes.get(minute));
        }
        for (long ten = hour + 10 * MINUTE; ten < to; ten += 10 * MINUTE) {
            settled.add(tens.get(ten));
        }
        List<byte[]> everyMinute = new ArrayList<>(minutes.subMap(from, to).values());
        return new Result(processes, buildSeconds, List.of(
                row("settled hour: 9 minutes + 5 ten-minute rollups", settled, from, to, rounds),
                row("59 minute rollups", everyMinute, from, to, rounds)));
    }

    private static Row row(String shape, List<byte[]> rollups, long from, long to, int rounds) {
        double[] decode = new double[rounds];
        double[] merge = new double[rounds];
        MergedProfile answer = null;
        // the first round of each warms up; the two are taken in turns so that noise falls on both
        for (int round = -1; round < rounds; round++) {
            long t0 = System.nanoTime();
            for (byte[] bytes : rollups) {
                RollupCodec.read(bytes);
            }
            long t1 = System.nanoTime();
            ProfileMerger merger = new ProfileMerger(ViewFilter.between(from, to));
            for (byte[] bytes : rollups) {
                merger.add(RollupCodec.read(bytes));
            }
            answer = merger.result();
            long t2 = System.nanoTime();
            if (round >= 0) {
                decode[round] = (t1 - t0) / 1e6;
                merge[round] = (t2 - t1) / 1e6;
            }
        }
        return new Row(shape, rollups.size(), rollups.stream().mapToInt(b -> b.length).sum(), Medians.of(decode),
                Medians.of(merge), answer.sampleCount(), sha256(answer));
    }

    /** The minute rollups of {@code [from, to)}: each chunk translated once and merged into the minutes it spans. */
    private static TreeMap<Long, byte[]> minutes(RangeFleet fleet, long from, long to) {
        ChunkProcessor processor = new ChunkProcessor(ChunkProcessor.DEFAULT_MAX_CHUNK_BYTES);
        ChunkTranslator translator = new ChunkTranslator("chunk-relay", "bench");
        Map<Long, ProfileMerger> open = new TreeMap<>();
        Map<Long, TreeSet<String>> included = new TreeMap<>();
        TreeMap<Long, byte[]> minutes = new TreeMap<>();
        // chunks that end in the first minute start in the minute before
        for (long[] start : fleet.starts(from - MINUTE, to)) {
            ChunkOutcome outcome = processor.process(fleet.chunk((int) start[0], start[1]),
                    new ChunkItemHeader(FleetChunks.PLATFORM, null));
            if (!(outcome instanceof ChunkOutcome.Accepted accepted)) {
                throw new IllegalStateException("a synthetic chunk was rejected: " + outcome);
            }
            ProfileChunk chunk = accepted.chunk();
            ExportProfilesServiceRequest otlp = translator.translate(chunk, TranslationContext.forProject(1));
            long first = Math.floorDiv(chunk.firstSampleNanos(), MINUTE) * MINUTE;
            long last = Math.floorDiv(chunk.lastSampleNanos(), MINUTE) * MINUTE;
            for (long minute = Math.max(first, from); minute <= last && minute < to; minute += MINUTE) {
                open.computeIfAbsent(minute, m -> Rollup.merger(m, m + MINUTE, RollupTier.MINUTE.ticks()))
                        .add(otlp, chunk.platform(), chunk.release(), chunk.environment());
                included.computeIfAbsent(minute, m -> new TreeSet<>()).add(chunk.chunkId().toHex());
            }
            // the starts come in time order: a minute that ended a chunk's length ago gets nothing more
            for (Long minute : List.copyOf(open.keySet())) {
                if (minute + MINUTE + RangeFleet.CHUNK_EVERY <= start[1]) {
                    minutes.put(minute, RollupCodec.write(new Rollup(minute, minute + MINUTE,
                            open.remove(minute).result(), included.remove(minute), new TreeMap<>())));
                }
            }
        }
        open.forEach((minute, merger) -> minutes.put(minute, RollupCodec.write(new Rollup(minute, minute + MINUTE,
                merger.result(), included.get(minute), new TreeMap<>()))));
        return minutes;
    }

    /** A ten-minute rollup made of its minutes' rollups, as the builder makes it. */
    private static byte[] tenMinutes(Map<Long, byte[]> minutes, long ten) {
        long end = ten + 10 * MINUTE;
        ProfileMerger merger = Rollup.merger(ten, end, RollupTier.TEN_MINUTES.ticks());
        TreeMap<Long, Long> versions = new TreeMap<>();
        for (long minute = ten; minute < end; minute += MINUTE) {
            Rollup rollup = RollupCodec.read(minutes.get(minute));
            merger.add(rollup);
            versions.put(minute, (long) rollup.included().size());
        }
        return RollupCodec.write(new Rollup(ten, end, merger.result(), new TreeSet<>(), versions));
    }

    private static String sha256(MergedProfile profile) {
        try {
            ByteArrayOutputStream pprof = new ByteArrayOutputStream();
            PprofWriter.write(profile, pprof);
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(pprof.toByteArray()))
                    .substring(0, 16);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    static List<String> lines(Result r) {
        List<String> lines = new ArrayList<>();
        lines.add(String.format(Locale.ROOT, "%d processes: the hour's minute and ten-minute rollups built in %.0f s",
                r.processes(), r.buildSeconds()));
        for (Row row : r.rows()) {
            lines.add(String.format(Locale.ROOT, "  %-48s %2d rollups %9d B: decoded %7.0f ms (floor), decoded and"
                            + " merged %7.0f ms (%5.1fx); %d samples, pprof sha256 %s", row.shape(), row.rollups(),
                    row.bytes(), row.decodeMillis(), row.mergeMillis(), row.ratio(), row.samples(),
                    row.pprofSha256()));
        }
        return lines;
    }

    public static void main(String[] args) {
        int processes = args.length > 0 ? Integer.parseInt(args[0]) : PROCESSES;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : ROUNDS;
        lines(measure(processes, rounds)).forEach(System.out::println);
    }
}
