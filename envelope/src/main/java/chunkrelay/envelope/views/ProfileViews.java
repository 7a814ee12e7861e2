package chunkrelay.envelope.views;

import chunkrelay.envelope.errors.RelayError;
import com.fasterxml.jackson.annotation.JsonInclude;
import chunkrelay.storage.ChunkMetadata;
import chunkrelay.storage.ArchiveKey;
import chunkrelay.storage.ArchivedChunk;
import chunkrelay.storage.ChunkArchive;
import chunkrelay.storage.UnderivedChunk;
import chunkrelay.translate.view.CollapsedStacksWriter;
import chunkrelay.translate.view.MergedProfile;
import chunkrelay.translate.view.OtlpViewWriter;
import chunkrelay.translate.view.PprofWriter;
import chunkrelay.translate.view.ProfileMerger;
import chunkrelay.translate.view.SpeedscopeWriter;
import com.google.protobuf.InvalidProtocolBufferException;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import jakarta.inject.Singleton;

import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The query side of the archive: which chunks a range holds (listed from the bucket by day prefix, no local index
 * that could drift) and one profile merged from their OTLP forms, exactly as they were forwarded. A range of more
 * than {@code relay.views.max-chunks} chunks is refused before anything is read.
 */
@Singleton
public class ProfileViews {
    private final ChunkArchive archive;
    private final ViewsConfig config;

    public ProfileViews(ChunkArchive archive, ViewsConfig config) {
        this.archive = archive;
        this.config = config;
    }

    /**
     * One archived chunk as a listing shows it.
     *
     * @param firstSampleNanos null for chunks archived before the relay recorded it
     * @param derived          its OTLP form is written (after the link window); profiles include derived chunks
     * @param delivered        its OTLP form reached the forwarding target
     */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    public record ChunkSummary(String chunkId, String profilerId, String day, String platform, String release,
                               String environment, Long sampleCount, Long firstSampleNanos, Long lastSampleNanos, boolean derived,
                               boolean delivered) {
    }

    /** A time range in whole seconds, the end exclusive. */
    public record Range(Instant from, Instant to) {
    }

    /** The project ids the archive holds. */
    public List<String> projects() {
        return archive.listProjects();
    }

    /**
     * The archived chunks of the query's project whose samples overlap its range and that pass its chunk filters:
     * the derived ones, then those still inside their link window ({@code derived: false}).
     *
     * @throws RelayError 400 when the range holds more than {@code relay.views.max-chunks}
     */
    public List<ChunkSummary> chunks(ViewQuery query) {
        List<Listed> listed = listed(query);
        List<ChunkSummary> summaries = new ArrayList<>(listed.size());
        for (Listed chunk : listed) {
            summaries.add(chunk.summary());
        }
        String project = Long.toString(query.project());
        for (LocalDate day = firstDay(query); !day.isAfter(lastDay(query)); day = day.plusDays(1)) {
            for (UnderivedChunk chunk : archive.listUnderived(project, day)) {
                if (query.profilerId() == null || query.profilerId().equals(chunk.key().profilerId())) {
                    ChunkSummary summary = new Listed(chunk.key(), null, archive.sentryMetadata(chunk.key())).summary();
                    if (matches(query, summary, chunk.key())) {
                        summaries.add(summary);
                    }
                }
            }
        }
        return summaries;
    }

    /**
     * The range of a project's newest chunks: the hour before the last sample of its newest day's newest chunk, or
     * less when that hour holds more than {@code relay.views.max-chunks} chunks of the day; empty when the project
     * has no derived chunk. Costs one listing of the project's days, one of the newest day and one metadata read per
     * chunk of that day.
     */
    public Optional<Range> newestRange(long project) {
        String id = Long.toString(project);
        List<LocalDate> days = archive.listDays(id);
        for (int d = days.size() - 1; d >= 0; d--) {
            List<long[]> spans = new ArrayList<>();
            for (ArchivedChunk chunk : archive.list(id, days.get(d), days.get(d))) {
                ChunkSummary summary = new Listed(chunk.key(), chunk, archive.metadata(chunk)).summary();
                if (summary.firstSampleNanos() != null) {
                    spans.add(new long[] {summary.firstSampleNanos(), summary.lastSampleNanos()});
                }
            }
            if (spans.isEmpty()) {
                continue;
            }
            spans.sort((a, b) -> Long.compare(b[1], a[1]));
            long end = spans.get(0)[1];
            long from = end - ViewQuery.DEFAULT_RANGE.toNanos();
            long start = end;
            for (int i = 0; i < spans.size() && i < config.maxChunks() && spans.get(i)[1] >= from; i++) {
                start = Math.min(start, Math.max(from, spans.get(i)[0]));
            }
            // whole seconds, as a person types them; the end is exclusive, so one past the last sample's second
            return Optional.of(new Range(Instant.ofEpochSecond(Math.floorDiv(start, 1_000_000_000L)),
                    Instant.ofEpochSecond(Math.floorDiv(end, 1_000_000_000L) + 1)));
        }
        return Optional.empty();
    }

    /** The query's samples merged into one profile. */
    public MergedProfile profile(ViewQuery query) {
        ProfileMerger merger = new ProfileMerger(query.filter());
        for (Listed chunk : listed(query)) {
            byte[] otlp = archive.readOtlp(chunk.archived());
            try {
                merger.add(ExportProfilesServiceRequest.parseFrom(otlp));
            } catch (InvalidProtocolBufferException e) {
                throw new IllegalStateException("archived OTLP form of " + chunk.archived().key().stem()
                        + " does not decode", e);
            }
        }
        return merger.result();
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
        return instant.truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString().replace("-", "").replace(":", "");
    }

    /** A listed chunk; {@code archived} is null while its OTLP form is not derived. */
    private record Listed(ArchiveKey key, ArchivedChunk archived, Map<String, String> metadata) {
        ChunkSummary summary() {
            return new ChunkSummary(key.chunkId(), key.profilerId(), key.day().toString(),
                    metadata.get(ChunkMetadata.PLATFORM), metadata.get(ChunkMetadata.RELEASE),
                    metadata.get(ChunkMetadata.ENVIRONMENT), number(ChunkMetadata.SAMPLE_COUNT), number(ChunkMetadata.FIRST_SAMPLE_NS),
                    number(ChunkMetadata.LAST_SAMPLE_NS), archived != null, archived != null && archived.delivered());
        }

        Long number(String name) {
            try {
                return metadata.containsKey(name) ? Long.valueOf(metadata.get(name)) : null;
            } catch (NumberFormatException e) {
                return null;
            }
        }
    }

    /**
     * The chunks filed under the range's days (and the day before, for chunks that began then), filtered by profiler
     * from their keys first, then by platform, release and time from their metadata.
     */
    private List<Listed> listed(ViewQuery query) {
        String project = Long.toString(query.project());
        List<ArchivedChunk> candidates = new ArrayList<>();
        for (ArchivedChunk chunk : archive.list(project, firstDay(query), lastDay(query))) {
            if (query.profilerId() == null || query.profilerId().equals(chunk.key().profilerId())) {
                candidates.add(chunk);
            }
        }
        List<Listed> listed = new ArrayList<>();
        for (ArchivedChunk chunk : candidates) {
            Listed candidate = new Listed(chunk.key(), chunk, archive.metadata(chunk));
            if (matches(query, candidate.summary(), chunk.key())) {
                listed.add(candidate);
                if (listed.size() > config.maxChunks()) {
                    throw ViewQuery.bad("the range holds more than " + config.maxChunks()
                            + " chunks (relay.views.max-chunks); narrow from/to or filter by profiler_id");
                }
            }
        }
        return listed;
    }

    /** Whether a chunk's samples overlap the range and it passes the platform, release and environment filters. */
    private static boolean matches(ViewQuery query, ChunkSummary summary, ArchiveKey key) {
        long from = ViewQuery.nanos(query.from());
        long to = ViewQuery.nanos(query.to());
        boolean inRange = summary.firstSampleNanos() == null
                ? !key.day().isBefore(firstDay(query).plusDays(1))
                : summary.firstSampleNanos() < to && summary.lastSampleNanos() >= from;
        return inRange && (query.platform() == null || query.platform().equals(summary.platform()))
                && (query.release() == null || query.release().equals(summary.release()))
                && (query.environment() == null || query.environment().equals(summary.environment()));
    }

    /** The day before the range's first: a chunk is filed under its first sample's day and may reach into it. */
    private static LocalDate firstDay(ViewQuery query) {
        return LocalDate.ofInstant(query.from(), ZoneOffset.UTC).minusDays(1);
    }

    private static LocalDate lastDay(ViewQuery query) {
        return LocalDate.ofInstant(query.to(), ZoneOffset.UTC);
    }
}
