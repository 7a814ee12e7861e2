package chunkrelay.envelope.rollups;

import chunkrelay.envelope.testing.RelayClient;
import chunkrelay.envelope.testing.RunningRelay;
import chunkrelay.storage.ArchivedChunk;
import chunkrelay.storage.ChunkMetadata;
import chunkrelay.translate.OtlpSamples;
import com.fasterxml.jackson.databind.JsonNode;
import com.google.perftools.profiles.ProfileProto;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import io.opentelemetry.proto.profiles.v1development.Line;
import io.opentelemetry.proto.profiles.v1development.ProfilesDictionary;
import io.opentelemetry.proto.profiles.v1development.Sample;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.zip.GZIPInputStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A fleet's answers checked against the test's own walk of the archived OTLP forms: samples per thread and stack,
 * the chunk count and the timeline of a range, with its filters.
 */
final class FleetAnswers {
    private static final long SECOND = 1_000_000_000L;

    private FleetAnswers() {
    }

    /** The profile, its chunk count and the timeline of a range, from the relay and from the test's own walk. */
    static void assertSameAnswer(RunningRelay relay, List<Archived> archived, long from, long to,
                                         String filter, long stepSeconds) throws Exception {
        assertEquals(walk(archived, from, to, filter, stepSeconds), ask(relay, from, to, filter, stepSeconds),
                "from=" + Instant.ofEpochSecond(0, from) + "&to=" + Instant.ofEpochSecond(0, to) + filter);
    }

    /**
     * What a range holds: samples per thread and stack, how many chunks start in it, and the timeline's counts per
     * profiler/thread and step start.
     */
    record Answer(Map<String, Long> samples, long chunks, Map<String, Map<Long, Long>> timeline) {
    }

    /** The test's own answer, from the archived OTLP forms. */
    static Answer walk(List<Archived> archived, long from, long to, String filter, long stepSeconds) {
        Walk walk = Walk.of(archived, from, to, filter);
        return new Answer(walk.samples, walk.chunks, walk.timeline(stepSeconds * SECOND));
    }

    /** The relay's answer: its pprof export and timeline of the range (both must answer 200). */
    static Answer ask(RunningRelay relay, long from, long to, String filter, long stepSeconds) throws Exception {
        String range = "from=" + Instant.ofEpochSecond(0, from) + "&to=" + Instant.ofEpochSecond(0, to) + filter;
        RelayClient client = relay.client();
        RelayClient.Answer pprof = client.get("/api/v1/projects/1/profile?format=pprof&" + range);
        assertEquals(200, pprof.status(), range + ": " + pprof.raw());
        ProfileProto.Profile profile = ProfileProto.Profile.parseFrom(
                new GZIPInputStream(new ByteArrayInputStream(pprof.bytes())).readAllBytes());
        String comment = profile.getStringTable((int) profile.getComment(0));
        long chunks = Long.parseLong(comment.substring("chunk-relay: ".length(), comment.indexOf(' ', 13)));

        RelayClient.Answer timeline = client.get("/api/v1/projects/1/timeline?step=" + stepSeconds + "&" + range);
        assertEquals(200, timeline.status(), range + ": " + timeline.raw());
        long step = stepSeconds * SECOND;
        JsonNode body = timeline.body();
        assertEquals(Math.floorDiv(from, step) * step, body.path("fromNanos").asLong());
        Map<String, Map<Long, Long>> series = new TreeMap<>();
        for (JsonNode line : body.path("series")) {
            Map<Long, Long> counts = new TreeMap<>();
            for (int i = 0; i < line.path("counts").size(); i++) {
                if (line.path("counts").get(i).asLong() != 0) {
                    counts.put(body.path("fromNanos").asLong() + i * step, line.path("counts").get(i).asLong());
                }
            }
            series.put(line.path("profilerId").asText() + "/" + line.path("threadId").asText(), counts);
        }
        return new Answer(samplesOf(profile), chunks, series);
    }

    /** Samples per thread and stack (function names leaf first) of a pprof export. */
    private static Map<String, Long> samplesOf(ProfileProto.Profile profile) {
        Map<Long, String> functions = new HashMap<>();
        profile.getFunctionList().forEach(f -> functions.put(f.getId(), profile.getStringTable((int) f.getName())));
        Map<Long, String> locations = new HashMap<>();
        for (ProfileProto.Location location : profile.getLocationList()) {
            List<String> names = new ArrayList<>();
            location.getLineList().forEach(line -> names.add(functions.get(line.getFunctionId())));
            locations.put(location.getId(), String.join("+", names));
        }
        Map<String, Long> samples = new TreeMap<>();
        for (ProfileProto.Sample sample : profile.getSampleList()) {
            String thread = "";
            for (ProfileProto.Label label : sample.getLabelList()) {
                if (profile.getStringTable((int) label.getKey()).equals("thread.id")) {
                    thread = profile.getStringTable((int) label.getStr());
                }
            }
            List<String> stack = new ArrayList<>();
            sample.getLocationIdList().forEach(id -> stack.add(locations.get(id)));
            samples.merge(thread + " " + String.join(";", stack), sample.getValue(0), Long::sum);
        }
        return samples;
    }

    /** An archived chunk's OTLP form and metadata, read once for all the walks. */
    record Archived(String chunkId, String profilerId, Map<String, String> metadata,
                    ExportProfilesServiceRequest otlp) {
        static List<Archived> all(RunningRelay relay) throws IOException {
            List<Archived> all = new ArrayList<>();
            for (ArchivedChunk chunk : relay.archivedChunks()) {
                all.add(new Archived(chunk.key().chunkId(), chunk.key().profilerId(), relay.archive().metadata(chunk),
                        ExportProfilesServiceRequest.parseFrom(relay.archive().readOtlp(chunk))));
            }
            return all;
        }
    }

    /**
     * Answers asked while a fleet sends, when some of its chunks are still in their link window (counted from their
     * form at receipt, not archived in their OTLP form yet): each is checked once the fleet has stopped and every
     * chunk is archived, against the walk of the chunks acknowledged before it was asked.
     */
    static final class AskedWhileSending {
        private record Asked(Answer answer, long from, long to, String filter, long stepSeconds,
                             Set<String> acknowledged) {
        }

        private final List<Asked> asked = new ArrayList<>();

        /** Asks a range now; {@code acknowledged} holds the ids of the chunks the relays answered 200 so far. */
        void ask(RunningRelay relay, Set<String> acknowledged, long from, long to, String filter, long stepSeconds)
                throws Exception {
            asked.add(new Asked(FleetAnswers.ask(relay, from, to, filter, stepSeconds), from, to, filter,
                    stepSeconds, Set.copyOf(acknowledged)));
        }

        void assertEachEqualsTheWalk(List<Archived> archived) {
            assertTrue(!asked.isEmpty(), "ranges were asked");
            for (Asked each : asked) {
                List<Archived> then = archived.stream().filter(c -> each.acknowledged().contains(c.chunkId()))
                        .toList();
                assertEquals(walk(then, each.from(), each.to(), each.filter(), each.stepSeconds()), each.answer(),
                        "from=" + Instant.ofEpochSecond(0, each.from()) + "&to="
                                + Instant.ofEpochSecond(0, each.to()) + each.filter() + ", asked with "
                                + each.acknowledged().size() + " chunks acknowledged");
            }
        }
    }

    /**
     * Every sample the archived OTLP forms hold: what the relay kept of the chunks sent. Relay's rules drop a thread
     * with fewer than two samples with a stack, its idle samples too ({@code chunk.ChunkNormaliser}), and a fleet
     * chunk's random thread per step leaves one so now and then, so a count of the samples sent would not be exact.
     */
    static long samples(List<Archived> archived) {
        long samples = 0;
        for (Archived chunk : archived) {
            for (Sample sample : chunk.otlp().getResourceProfiles(0).getScopeProfiles(0).getProfiles(0)
                    .getSamplesList()) {
                samples += sample.getTimestampsUnixNanoCount();
            }
        }
        return samples;
    }

    /** The test's own answer: every archived OTLP form walked, its samples in range and filter counted. */
    private static final class Walk {
        final Map<String, Long> samples = new TreeMap<>();
        final List<long[]> times = new ArrayList<>();
        final List<String> timeThreads = new ArrayList<>();
        long chunks;

        static Walk of(List<Archived> archived, long from, long to, String filter) {
            Map<String, String> wanted = new HashMap<>();
            for (String part : filter.split("&")) {
                if (part.contains("=")) {
                    wanted.put(part.substring(0, part.indexOf('=')), part.substring(part.indexOf('=') + 1));
                }
            }
            Walk walk = new Walk();
            for (Archived chunk : archived) {
                Map<String, String> metadata = chunk.metadata();
                if (!matches(wanted, "release", metadata.get(ChunkMetadata.RELEASE))
                        || !matches(wanted, "environment", metadata.get(ChunkMetadata.ENVIRONMENT))
                        || !matches(wanted, "profiler_id", chunk.profilerId())) {
                    continue;
                }
                long first = Long.parseLong(metadata.get(ChunkMetadata.FIRST_SAMPLE_NS));
                if (first >= from && first < to) {
                    walk.chunks++;
                }
                walk.add(chunk.otlp(), chunk.profilerId(), from, to, wanted.get("thread_id"));
            }
            return walk;
        }

        private static boolean matches(Map<String, String> wanted, String name, String value) {
            return !wanted.containsKey(name) || wanted.get(name).equals(value);
        }

        private void add(ExportProfilesServiceRequest otlp, String profiler, long from, long to, String onlyThread) {
            ProfilesDictionary dictionary = otlp.getDictionary();
            for (Sample sample : otlp.getResourceProfiles(0).getScopeProfiles(0).getProfiles(0).getSamplesList()) {
                String thread = Objects.requireNonNullElse(OtlpSamples.threadId(dictionary, sample), "");
                if (onlyThread != null && !onlyThread.equals(thread)) {
                    continue;
                }
                List<String> stack = new ArrayList<>();
                for (int location : dictionary.getStackTable(sample.getStackIndex()).getLocationIndicesList()) {
                    List<String> names = new ArrayList<>();
                    for (Line line : dictionary.getLocationTable(location).getLinesList()) {
                        names.add(dictionary.getStringTable(dictionary.getFunctionTable(line.getFunctionIndex())
                                .getNameStrindex()));
                    }
                    stack.add(String.join("+", names));
                }
                for (long timestamp : sample.getTimestampsUnixNanoList()) {
                    if (timestamp >= from && timestamp < to) {
                        samples.merge(thread + " " + String.join(";", stack), 1L, Long::sum);
                        times.add(new long[] {timestamp});
                        timeThreads.add(profiler + "/" + thread);
                    }
                }
            }
        }

        Map<String, Map<Long, Long>> timeline(long step) {
            Map<String, Map<Long, Long>> series = new TreeMap<>();
            for (int i = 0; i < times.size(); i++) {
                long at = Math.floorDiv(times.get(i)[0], step) * step;
                series.computeIfAbsent(timeThreads.get(i), k -> new TreeMap<>()).merge(at, 1L, Long::sum);
            }
            return series;
        }
    }

}
