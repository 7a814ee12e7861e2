package chunkrelay.envelope.views;

import com.fasterxml.jackson.annotation.JsonInclude;
import chunkrelay.storage.ArchiveKey;
import chunkrelay.storage.ChunkArchive;
import chunkrelay.storage.ChunkMetadata;
import chunkrelay.storage.ChunkTimeIndex;
import chunkrelay.storage.ProjectIds;
import chunkrelay.storage.TimeBuckets;
import chunkrelay.translate.view.CollapsedStacksWriter;
import chunkrelay.translate.view.MergedProfile;
import chunkrelay.translate.view.OtlpViewWriter;
import chunkrelay.translate.view.PprofWriter;
import chunkrelay.translate.view.SpeedscopeWriter;
import chunkrelay.translate.view.TimeGrid;
import jakarta.inject.Singleton;

import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The query side of the archive: which chunks a range holds (from the index by time, one listing per minute of the
 * range) and one profile merged from the range's rollups and chunks ({@link RangeReader}), from the bucket alone.
 */
@Singleton
public class ProfileViews {
    private final ChunkArchive archive;
    private final ChunkTimeIndex index;
    private final RangeReader reader;
    private final ViewsConfig config;

    public ProfileViews(ChunkArchive archive, ChunkTimeIndex index, RangeReader reader, ViewsConfig config) {
        this.archive = archive;
        this.index = index;
        this.reader = reader;
        this.config = config;
    }

    /**
     * One archived chunk as a listing shows it.
     *
     * @param firstSampleNanos the chunk's first sample
     * @param derived          its OTLP form is written (after the link window); profiles include derived chunks
     * @param delivered        its OTLP form reached the forwarding target
     * @param refused          the forwarding target refused it for good: when, and the target's reason; else null
     */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    public record ChunkSummary(String chunkId, String profilerId, String day, String platform, String release,
                               String environment, Long sampleCount, Long firstSampleNanos, Long lastSampleNanos,
                               boolean derived, boolean delivered, String refused) {
    }

    /** The chunks of a range, at most {@code relay.views.max-chunks} of them, the earliest first. */
    public record ChunkListing(List<ChunkSummary> chunks, boolean truncated) {
    }

    /** A time range in whole seconds, the end exclusive. */
    public record Range(Instant from, Instant to) {
    }

    /** The project ids the archive holds. */
    public List<String> projects() {
        return archive.listProjects();
    }

    /**
     * The archived chunks of the query's project whose samples overlap its range and that pass its chunk filters,
     * by the minute they start in: derived ones and those still inside their link window ({@code derived: false}).
     * Past {@code relay.views.max-chunks} the listing stops ({@code truncated}): it costs one listing per minute and
     * one metadata read per chunk listed.
     */
    public ChunkListing chunks(ViewQuery query) {
        String project = ProjectIds.format(query.project());
        long from = TimeBuckets.nanos(query.from());
        long to = TimeBuckets.nanos(query.to());
        List<ChunkSummary> summaries = new ArrayList<>();
        boolean[] truncated = {false};
        index.overlappingRange(project, from, to, entry -> {
            if (query.profilerId() != null && !query.profilerId().equals(entry.key().profilerId())) {
                return true;
            }
            if (summaries.size() == config.maxChunks()) {
                truncated[0] = true;
                return false;
            }
            ChunkSummary summary = summary(entry);
            if (matches(query, summary)) {
                summaries.add(summary);
            }
            return true;
        });
        return new ChunkListing(summaries, truncated[0]);
    }

    /**
     * The range of a project's newest chunks: the hour (from the start of its first minute) before the last sample of
     * the chunks that started in its newest indexed minute or the two before (a chunk started earlier may end later);
     * empty when the project has none. Costs a listing of its days, of the newest day's minutes and of those minutes.
     */
    public Optional<Range> newestRange(long project) {
        String id = ProjectIds.format(project);
        List<LocalDate> days = index.days(id);
        for (int d = days.size() - 1; d >= 0; d--) {
            List<Long> minutes = index.minutes(id, days.get(d));
            if (!minutes.isEmpty()) {
                long newest = minutes.get(minutes.size() - 1);
                long end = Long.MIN_VALUE;
                for (int behind = 0; behind <= ChunkTimeIndex.LOOK_BEHIND_MINUTES; behind++) {
                    for (ChunkTimeIndex.Entry entry : index.startingIn(id,
                            newest - behind * TimeBuckets.MINUTE_NANOS)) {
                        end = Math.max(end, entry.lastSampleNanos());
                    }
                }
                if (end != Long.MIN_VALUE) {
                    // whole seconds, as a person types them; the end is exclusive, so one past the last sample's second
                    Instant to = TimeBuckets.secondOf(Instant.ofEpochSecond(0, end)).plusSeconds(1);
                    return Optional.of(new Range(ViewQuery.defaultStart(to), to));
                }
            }
        }
        return Optional.empty();
    }

    /** The query's samples merged into one profile. */
    public MergedProfile profile(ViewQuery query) {
        return reader.merge(query.project(), query.filter(), null).profile();
    }

    /** The query's samples merged into one profile, counted per thread on the steps of {@code grid}. */
    public MergedProfile profile(ViewQuery query, TimeGrid grid) {
        return reader.merge(query.project(), query.filter(), grid).profile();
    }

    /** Writes the query's merged profile in {@code format}. */
    public void export(ViewQuery query, ExportFormat format, OutputStream out) throws IOException {
        write(profile(query), fileName(query, format), format, out);
    }

    /** Writes a merged profile in {@code format}; {@code name} names it where the format has a name. */
    public static void write(MergedProfile profile, String name, ExportFormat format, OutputStream out)
            throws IOException {
        switch (format) {
            case PPROF -> PprofWriter.write(profile, out);
            case SPEEDSCOPE -> SpeedscopeWriter.write(profile, name, out);
            case COLLAPSED -> CollapsedStacksWriter.write(profile, new OutputStreamWriter(out, StandardCharsets.UTF_8));
            case OTLP -> OtlpViewWriter.build(profile, "chunk-relay").writeTo(out);
        }
        out.flush();
    }

    /** A file name that says what the export holds, e.g. {@code profile-1-20261122T020000Z-20261122T030000Z.pb.gz}. */
    public static String fileName(ViewQuery query, ExportFormat format) {
        return "profile-" + query.project() + "-" + compact(query.from()) + "-" + compact(query.to()) + "."
                + format.suffix();
    }

    private static String compact(java.time.Instant instant) {
        return TimeBuckets.secondOf(instant).toString().replace("-", "").replace(":", "");
    }

    /** A chunk's summary from its OTLP object's metadata, or its Sentry object's while it is not derived. */
    private ChunkSummary summary(ChunkTimeIndex.Entry entry) {
        ArchiveKey key = entry.key();
        Optional<Map<String, String>> derived = archive.derivedMetadata(key);
        Map<String, String> metadata = derived.orElseGet(() -> archive.sentryMetadata(key));
        boolean delivered = derived.isPresent() && archive.isDelivered(key);
        return new ChunkSummary(key.chunkId(), key.profilerId(), key.day().toString(),
                metadata.get(ChunkMetadata.PLATFORM), metadata.get(ChunkMetadata.RELEASE),
                metadata.get(ChunkMetadata.ENVIRONMENT), number(metadata, ChunkMetadata.SAMPLE_COUNT),
                entry.firstSampleNanos(), entry.lastSampleNanos(), derived.isPresent(), delivered,
                derived.isPresent() && !delivered ? archive.refusal(key).orElse(null) : null);
    }

    private static Long number(Map<String, String> metadata, String name) {
        try {
            return metadata.containsKey(name) ? Long.valueOf(metadata.get(name)) : null;
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** Whether a chunk passes the platform, release and environment filters. */
    private static boolean matches(ViewQuery query, ChunkSummary summary) {
        return (query.platform() == null || query.platform().equals(summary.platform()))
                && (query.release() == null || query.release().equals(summary.release()))
                && (query.environment() == null || query.environment().equals(summary.environment()));
    }
}
