package chunkrelay.bench;

import chunkrelay.chunk.ChunkItemHeader;
import chunkrelay.chunk.ChunkOutcome;
import chunkrelay.chunk.ChunkProcessor;
import chunkrelay.chunk.ProfileChunk;
import chunkrelay.envelope.archive.ArchivedMetadata;
import chunkrelay.envelope.archive.RelayVersion;
import chunkrelay.envelope.rollups.OpenMinutes;
import chunkrelay.envelope.rollups.RollupBuilds;
import chunkrelay.envelope.rollups.RollupConfig;
import chunkrelay.envelope.schedule.BackgroundWork;
import chunkrelay.envelope.testing.FleetChunks;
import chunkrelay.envelope.views.RangeReader;
import chunkrelay.envelope.views.ViewsConfig;
import chunkrelay.envelope.views.WholeChunkReads;
import chunkrelay.storage.ArchiveKey;
import chunkrelay.storage.ArchiveSettings;
import chunkrelay.storage.ChunkArchive;
import chunkrelay.storage.ChunkTimeIndex;
import chunkrelay.storage.EmbeddedS3Server;
import chunkrelay.storage.ObjectStore;
import chunkrelay.storage.RollupObjects;
import chunkrelay.storage.RollupTier;
import chunkrelay.storage.TimeBuckets;
import chunkrelay.translate.ChunkTranslator;
import chunkrelay.translate.TranslationContext;
import chunkrelay.translate.view.Rollup;
import chunkrelay.translate.view.RollupCodec;
import chunkrelay.translate.view.RollupShift;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * A fleet's archive as the relay keeps it by default (the embedded S3 server on the filesystem, reached in this
 * process), filled without a relay: one hour of {@link FleetChunks} from 20 profilers, through the relay's
 * own normalisation, translation, OTLP object and index by time, its minute, ten-minute and hour rollups built by
 * {@link RollupBuilds}; then more hours, and the days of a week, made of that hour's rollups moved in time.
 */
final class FleetArchive implements AutoCloseable {
    static final String PROJECT = "1";
    static final int PROFILERS = 20;
    static final long MINUTE = TimeBuckets.MINUTE_NANOS;
    static final long HOUR = RollupTier.HOUR.bucketNanos();
    static final long DAY = RollupTier.DAY.bucketNanos();
    /** Chunk starts every 10 s per profiler, each profiler 50 ms after the one before: all within the hour. */
    private static final long CADENCE = 10_000_000_000L;
    private static final long STAGGER = 50_000_000L;
    private static final long CHUNK_STEP = 20_000_000L;
    private static final long CHUNK_SPAN = 9_000_000_000L;
    private static final int CHUNK_STEPS = (int) (CHUNK_SPAN / CHUNK_STEP) + 1;
    /**
     * Small chunks for the in-process rows: each profiler a Python-like process with four threads, 80 functions in
     * 400 stacks of depth 2 to 17, one sample per thread every 20 ms for 9 s (1 800 samples).
     */
    private static final FleetChunks CHUNKS = new FleetChunks(new FleetChunks.Shape(
            List.of("worker-1", "worker-2", "worker-3", "worker-4"), 80, 7, 400, false, 2, 17, CHUNK_STEP,
            FleetChunks.Sampling.EVERY_THREAD_SKEWED, 0xc0ffee00L));
    /** No cap on chunks read whole: the raw path must be able to read the hour. */
    private static final ViewsConfig UNCAPPED = new ViewsConfig(true, "", Integer.MAX_VALUE);
    private static final RollupConfig ROLLUPS = new RollupConfig(true, Duration.ofSeconds(45), Duration.ofSeconds(10),
            Duration.ofDays(1), 0, Duration.ofDays(7));

    private final EmbeddedS3Server s3;
    private final ObjectStore store;
    private final ObjectStore noRollupStore;
    private final ChunkArchive archive;
    private final ChunkTimeIndex index;
    private final RollupObjects rollups;
    private final RollupBuilds builds;
    private final OpenMinutes noOpenMinutes;
    private final WholeChunkReads chunkReads;
    private final RollupBuilds noRollups;
    /** The hour ingested (Unix nanoseconds). */
    final long hour;

    FleetArchive(Path directory, long hour) {
        this.hour = hour;
        s3 = EmbeddedS3Server.unsignedFilesystem(directory);
        store = ObjectStore.inProcess(s3, ArchiveSettings.defaults().withBucket("fleet"), Clock.systemUTC());
        // the raw path: the same chunks and index, rollups read from a bucket that has none
        noRollupStore = ObjectStore.inProcess(s3, ArchiveSettings.defaults().withBucket("fleet-no-rollups"),
                Clock.systemUTC());
        noRollupStore.storeObject("placeholder", new byte[0]);
        archive = new ChunkArchive(store);
        // a clock at the epoch: no minute has settled when its chunks are indexed, so none is late
        TimeBuckets buckets = new TimeBuckets(Clock.fixed(Instant.EPOCH, ZoneOffset.UTC), Duration.ofSeconds(45));
        index = new ChunkTimeIndex(store, buckets, Duration.ofSeconds(10));
        rollups = new RollupObjects(store);
        builds = new RollupBuilds(archive, index, rollups, new SimpleMeterRegistry());
        noRollups = new RollupBuilds(archive, index, new RollupObjects(noRollupStore), new SimpleMeterRegistry());
        // an archive written before the bench: no minute of it is open in this process
        chunkReads = new WholeChunkReads(archive, new BackgroundWork(Clock.systemUTC(), Duration.ofSeconds(30)));
        noOpenMinutes = new OpenMinutes(archive, buckets, rollups, ROLLUPS, new SimpleMeterRegistry());
    }

    /** The reader of the relay's views, with rollups or without any (every chunk read whole). */
    RangeReader reader(boolean withRollups) {
        return new RangeReader(archive, index, withRollups ? builds : noRollups, noOpenMinutes, ROLLUPS, UNCAPPED,
                chunkReads);
    }

    /** Generates, translates and archives the hour's chunks on two threads; how many. */
    int ingestHour() throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            List<Future<Integer>> done = new ArrayList<>();
            for (int half = 0; half < 2; half++) {
                int first = half;
                done.add(threads.submit(() -> {
                    ChunkProcessor processor = new ChunkProcessor(ChunkProcessor.DEFAULT_MAX_CHUNK_BYTES);
                    ChunkTranslator translator = new ChunkTranslator("chunk-relay", "bench");
                    RelayVersion version = new RelayVersion();
                    int count = 0;
                    for (int p = first; p < PROFILERS; p += 2) {
                        for (long start = hour + p * STAGGER; start + CHUNK_SPAN < hour + HOUR;
                             start += CADENCE) {
                            archive(processor, translator, version, p, start);
                            count++;
                        }
                    }
                    return count;
                }));
            }
            int chunks = 0;
            for (Future<Integer> future : done) {
                chunks += future.get();
            }
            return chunks;
        } finally {
            threads.shutdownNow();
        }
    }

    /** One chunk as the relay archives it: its OTLP form with the relay's metadata, then its index entries. */
    private void archive(ChunkProcessor processor, ChunkTranslator translator, RelayVersion version, int profiler,
                         long start) {
        byte[] json = CHUNKS.chunk(profiler, FleetChunks.release(profiler, PROFILERS), start, CHUNK_STEPS);
        ChunkOutcome outcome = processor.process(json, new ChunkItemHeader(FleetChunks.PLATFORM, null));
        if (!(outcome instanceof ChunkOutcome.Accepted accepted)) {
            throw new IllegalStateException("a synthetic chunk was rejected: " + outcome);
        }
        ProfileChunk chunk = accepted.chunk();
        ArchiveKey key = ArchiveKey.of(PROJECT, Instant.ofEpochSecond(0, chunk.firstSampleNanos()),
                chunk.profilerId().toHex(), chunk.chunkId().toHex());
        archive.storeDerivedOtlp(key, translator.translate(chunk, TranslationContext.forProject(1)).toByteArray(),
                ArchivedMetadata.of(chunk, version));
        index.record(key, chunk.firstSampleNanos(), chunk.lastSampleNanos());
    }

    /**
     * Builds the ingested hour's minute rollups, its ten-minute rollups and its hour rollup, as the relay's builder
     * does once they settle.
     */
    void buildHour() {
        for (long minute = hour; minute < hour + HOUR; minute += MINUTE) {
            builds.buildMinute(PROJECT, minute).orElseThrow(() -> new IllegalStateException("an empty minute"));
        }
        long ten = RollupTier.TEN_MINUTES.bucketNanos();
        for (long start = hour; start < hour + HOUR; start += ten) {
            builds.buildFromParts(PROJECT, RollupTier.TEN_MINUTES, start).orElseThrow();
        }
        builds.buildFromParts(PROJECT, RollupTier.HOUR, hour).orElseThrow();
    }

    /** The ingested hour's rollup of a tier at {@code bucket}. */
    Rollup rollup(RollupTier tier, long bucket) {
        return builds.read(newest(tier, bucket)).orElseThrow();
    }

    /** The stored bytes of the newest rollup of a tier at {@code bucket}: as written, and as compressed. */
    long[] rollupBytes(RollupTier tier, long bucket) {
        byte[] plain = rollups.read(newest(tier, bucket)).orElseThrow();
        return new long[] {plain.length, archive.compress(plain).length};
    }

    private RollupObjects.Version newest(RollupTier tier, long bucket) {
        return builds.newest(PROJECT, tier, bucket).orElseThrow(() -> new IllegalStateException(
                "no " + tier + " rollup at " + Instant.ofEpochSecond(0, bucket)));
    }

    /** Writes the ingested hour's rollup moved to {@code hour + shift}, as if that hour had been ingested too. */
    void copyHour(long shift) {
        copy(RollupTier.HOUR, hour, shift);
    }

    /** Writes the ingested hour's minute and ten-minute rollups moved to the hour {@code hour + shift}. */
    void copyMinutes(long shift) {
        for (long minute = hour; minute < hour + HOUR; minute += MINUTE) {
            copy(RollupTier.MINUTE, minute, shift);
        }
        long ten = RollupTier.TEN_MINUTES.bucketNanos();
        for (long start = hour; start < hour + HOUR; start += ten) {
            copy(RollupTier.TEN_MINUTES, start, shift);
        }
    }

    private void copy(RollupTier tier, long bucket, long shift) {
        RollupObjects.Version version = newest(tier, bucket);
        Rollup moved = RollupShift.shifted(builds.read(version).orElseThrow(), shift);
        rollups.write(new RollupObjects.Version(PROJECT, tier, bucket + shift, version.chunks()),
                RollupCodec.write(moved));
    }

    /** Builds a day's rollup from the hour rollups it has, as the relay's builder does once the day settles. */
    void buildDay(long day) {
        builds.buildFromParts(PROJECT, RollupTier.DAY, day).orElseThrow();
    }

    /**
     * Files the ingested hour's index entries again in the hour {@code hour + shift} (entries only: their chunks
     * are not there), as the index of a day full of chunks would list them; how many entries.
     */
    int copyIndex(long shift) {
        int entries = 0;
        for (long minute = hour; minute < hour + HOUR; minute += MINUTE) {
            for (ChunkTimeIndex.Entry entry : index.startingIn(PROJECT, minute)) {
                ArchiveKey key = entry.key();
                index.record(ArchiveKey.of(PROJECT, Instant.ofEpochSecond(0, entry.firstSampleNanos() + shift),
                                key.profilerId(), key.chunkId()), entry.firstSampleNanos() + shift,
                        entry.lastSampleNanos() + shift);
                entries++;
            }
        }
        return entries;
    }

    /** The samples of each minute's rollup of the ingested hour, by minute of the hour. */
    long[] minuteSamples() {
        long[] samples = new long[60];
        for (int m = 0; m < 60; m++) {
            samples[m] = rollup(RollupTier.MINUTE, hour + m * MINUTE).profile().sampleCount();
        }
        return samples;
    }

    @Override
    public void close() {
        archive.close();
        noRollupStore.close();
        store.close();
        s3.close();
    }
}
