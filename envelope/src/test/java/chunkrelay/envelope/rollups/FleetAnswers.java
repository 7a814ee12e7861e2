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
import java.util.TreeMap;
import java.util.zip.GZIPInputStream;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
        String range = "from=" + Instant.ofEpochSecond(0, from) + "&to=" + Instant.ofEpochSecond(0, to) + filter;
        Walk walk = Walk.of(archived, from, to, filter);

        RelayClient client = relay.client();
        RelayClient.Answer pprof = client.get("/api/v1/projects/1/profile?format=pprof&" + range);
        assertEquals(200, pprof.status(), pprof.raw());
        ProfileProto.Profile profile = ProfileProto.Profile.parseFrom(
                new GZIPInputStream(new ByteArrayInputStream(pprof.bytes())).readAllBytes());
        assertEquals(walk.samples, samplesOf(profile), range);
        assertEquals("chunk-relay: " + walk.chunks + " chunk(s) merged",
                profile.getStringTable((int) profile.getComment(0)), range);

        JsonNode timeline = client.get("/api/v1/projects/1/timeline?step=" + stepSeconds + "&" + range).body();
        long step = stepSeconds * SECOND;
        assertEquals(Math.floorDiv(from, step) * step, timeline.path("fromNanos").asLong());
        Map<String, Map<Long, Long>> series = new TreeMap<>();
        for (JsonNode line : timeline.path("series")) {
            Map<Long, Long> counts = new TreeMap<>();
            for (int i = 0; i < line.path("counts").size(); i++) {
                if (line.path("counts").get(i).asLong() != 0) {
                    counts.put(timeline.path("fromNanos").asLong() + i * step, line.path("counts").get(i).asLong());
                }
            }
            series.put(line.path("profilerId").asText() + "/" + line.path("threadId").asText(), counts);
        }
        assertEquals(walk.timeline(step), series, "timeline of " + range);
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
    record Archived(String profilerId, Map<String, String> metadata, ExportProfilesServiceRequest otlp) {
        static List<Archived> all(RunningRelay relay) throws IOException {
            List<Archived> all = new ArrayList<>();
            for (ArchivedChunk chunk : relay.archivedChunks()) {
                all.add(new Archived(chunk.key().profilerId(), relay.archive().metadata(chunk),
                        ExportProfilesServiceRequest.parseFrom(relay.archive().readOtlp(chunk))));
            }
            return all;
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
