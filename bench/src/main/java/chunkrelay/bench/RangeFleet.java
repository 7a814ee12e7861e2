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
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The fleet of the ranges section: N processes of four threads each ending a 10 s chunk every 10 s (small synthetic
 * chunks, {@link FleetChunks}: 100 samples a thread a chunk, 400 stacks), and the relay's archive directory opened in
 * this process: an hour of that fleet written into it before the relay starts (OTLP forms and index entries, through
 * the relay's normalisation and translation, no Sentry forms: nothing is left to derive), for the relay's own
 * builder to roll up; after the relay has stopped, its rollups read back for the floor and the merge's breakdown.
 * Every chunk's samples are known here, so a range's exact count is computed without asking the relay.
 */
final class RangeFleet {
    static final String PROJECT = "1";
    static final long SECOND = TimeBuckets.SECOND_NANOS;
    static final long MINUTE = TimeBuckets.MINUTE_NANOS;
    static final long CHUNK_EVERY = 10 * SECOND;
    private static final long STEP = 100_000_000L;
    static final int STEPS = 100;
    private static final int THREADS = 4;
    private static final FleetChunks CHUNKS = new FleetChunks(new FleetChunks.Shape(
            List.of("worker-1", "worker-2", "worker-3", "worker-4"), 80, 7, 400, false, 2, 17, STEP,
            FleetChunks.Sampling.EVERY_THREAD_SKEWED, 0xbac0f111L));
    private static final ViewsConfig UNCAPPED = new ViewsConfig(true, "", Integer.MAX_VALUE);
    private static final RollupConfig ROLLUPS = new RollupConfig(true, Duration.ofSeconds(45), Duration.ofSeconds(10),
            Duration.ofDays(1), 0, Duration.ofDays(7));

    final int processes;

    RangeFleet(int processes) {
        this.processes = processes;
    }

    /** When profiler {@code p}'s chunks start, modulo 10 s: the fleet spread evenly over the period. */
    long offset(int p) {
        return CHUNK_EVERY * p / processes;
    }

    /** One chunk's JSON as profiler {@code p} sends it, its first sample at {@code start}. */
    byte[] chunk(int p, long start) {
        return CHUNKS.chunk(p, FleetChunks.release(p, processes), start, STEPS);
    }

    /** The chunk starts of {@code [from, to)}, every profiler, as {profiler, start} pairs. */
    List<long[]> starts(long from, long to) {
        List<long[]> starts = new ArrayList<>();
        for (long period = from; period < to; period += CHUNK_EVERY) {
            for (int p = 0; p < processes; p++) {
                long start = period + offset(p);
                if (start + CHUNK_EVERY <= to) {
                    starts.add(new long[] {p, start});
                }
            }
        }
        return starts;
    }

    /** Samples of the chunks starting at {@code starts} in {@code [from, to)}: thread t samples at step i, t ms in. */
    static long samplesIn(List<long[]> starts, long from, long to) {
        long count = 0;
        for (long[] start : starts) {
            for (int t = 1; t <= THREADS; t++) {
                long first = start[1] + t * 1_000_000L;
                count += Math.max(0, Math.min(STEPS, ceilSteps(to - first)) - Math.max(0, ceilSteps(from - first)));
            }
        }
        return count;
    }

    /** The first step at or after {@code nanos} past the thread's first sample. */
    private static long ceilSteps(long nanos) {
        return Math.floorDiv(nanos + STEP - 1, STEP);
    }

    /** The relay's embedded archive under {@code directory} (its bucket, as the relay names it), in this process. */
    Archive open(Path directory) {
        return new Archive(directory);
    }

    final class Archive implements AutoCloseable {
        private final EmbeddedS3Server s3;
        private final ObjectStore store;
        private final ChunkArchive archive;
        private final ChunkTimeIndex index;
        private final RollupObjects rollups;
        private final RollupBuilds builds;

        private Archive(Path directory) {
            s3 = EmbeddedS3Server.unsignedFilesystem(directory);
            store = ObjectStore.inProcess(s3, ArchiveSettings.defaults(), Clock.systemUTC());
            archive = new ChunkArchive(store);
            // a clock at the epoch: no minute has settled when its chunks are indexed, so none is late
            index = new ChunkTimeIndex(store, new TimeBuckets(Clock.fixed(Instant.EPOCH, ZoneOffset.UTC),
                    Duration.ofSeconds(45)), Duration.ofSeconds(10));
            rollups = new RollupObjects(store);
            builds = new RollupBuilds(archive, index, rollups, new SimpleMeterRegistry());
        }

        /** Writes the chunks of {@code starts} into the archive on two threads, as the relay derives them. */
        void backfill(List<long[]> starts) throws Exception {
            ExecutorService threads = Executors.newFixedThreadPool(2);
            try {
                List<Future<?>> done = new ArrayList<>();
                for (int half = 0; half < 2; half++) {
                    int first = half;
                    done.add(threads.submit(() -> {
                        ChunkProcessor processor = new ChunkProcessor(ChunkProcessor.DEFAULT_MAX_CHUNK_BYTES);
                        ChunkTranslator translator = new ChunkTranslator("chunk-relay", "bench");
                        RelayVersion version = new RelayVersion();
                        for (int i = first; i < starts.size(); i += 2) {
                            archive(processor, translator, version, (int) starts.get(i)[0], starts.get(i)[1]);
                        }
                        return null;
                    }));
                }
                for (Future<?> future : done) {
                    future.get();
                }
            } finally {
                threads.shutdownNow();
            }
        }

        private void archive(ChunkProcessor processor, ChunkTranslator translator, RelayVersion version, int profiler,
                             long start) {
            ChunkOutcome outcome = processor.process(chunk(profiler, start),
                    new ChunkItemHeader(FleetChunks.PLATFORM, null));
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

        /** The reader of the relay's views over what the relay left, no partials of open minutes, no cap. */
        RangeReader reader() {
            OpenMinutes none = new OpenMinutes(archive, new TimeBuckets(Clock.fixed(Instant.EPOCH, ZoneOffset.UTC),
                    Duration.ofSeconds(45)), rollups, ROLLUPS, new SimpleMeterRegistry());
            return new RangeReader(archive, index, builds, none, ROLLUPS, UNCAPPED,
                    new WholeChunkReads(archive, new BackgroundWork(Clock.systemUTC(), Duration.ofSeconds(30))));
        }

        /** The newest minute rollups of the hours around {@code [from, to)}, by minute. */
        Map<Long, RollupObjects.Version> minutes(long from, long to) {
            Map<Long, RollupObjects.Version> minutes = new java.util.TreeMap<>();
            for (long hour = TimeBuckets.bucketOf(RollupTier.HOUR, from); hour < to; hour += RollupTier.HOUR.bucketNanos()) {
                builds.newestOf(PROJECT, TimeBuckets.dayOf(hour), RollupTier.MINUTE, TimeBuckets.name(RollupTier.HOUR,
                        hour)).forEach((minute, version) -> {
                            if (minute >= from && minute < to) {
                                minutes.put(minute, version);
                            }
                        });
            }
            return minutes;
        }

        RollupObjects rollups() {
            return rollups;
        }

        @Override
        public void close() {
            archive.close();
            store.close();
            s3.close();
        }
    }
}
