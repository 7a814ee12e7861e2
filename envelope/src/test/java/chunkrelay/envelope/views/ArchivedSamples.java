package chunkrelay.envelope.views;

import chunkrelay.envelope.testing.RunningRelay;
import chunkrelay.storage.ArchivedChunk;
import chunkrelay.storage.ChunkMetadata;
import com.google.protobuf.InvalidProtocolBufferException;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import io.opentelemetry.proto.profiles.v1development.Line;
import io.opentelemetry.proto.profiles.v1development.Link;
import io.opentelemetry.proto.profiles.v1development.Location;
import io.opentelemetry.proto.profiles.v1development.ProfilesDictionary;
import io.opentelemetry.proto.profiles.v1development.Sample;

import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.Map;
import java.util.Set;

/**
 * The test's own walk of the archived OTLP forms, independent of the view code: samples in all, per linked span, and
 * per release the samples in which each function (name and file) appears.
 */
final class ArchivedSamples {
    long samples;
    /** "trace/span" → linked samples. */
    final Map<String, Long> bySpan = new HashMap<>();
    /** release → samples. */
    final Map<String, Long> byRelease = new HashMap<>();
    /** release → "name\u0000file" → samples in which the function appears at least once. */
    final Map<String, Map<String, Long>> functionTotals = new HashMap<>();

    static ArchivedSamples walk(RunningRelay relay) throws InvalidProtocolBufferException {
        ArchivedSamples walk = new ArchivedSamples();
        for (ArchivedChunk chunk : relay.archivedChunks()) {
            String release = relay.archive().metadata(chunk).get(ChunkMetadata.RELEASE);
            ExportProfilesServiceRequest otlp = ExportProfilesServiceRequest.parseFrom(relay.archive().readOtlp(chunk));
            ProfilesDictionary dictionary = otlp.getDictionary();
            for (var resource : otlp.getResourceProfilesList()) {
                for (var scope : resource.getScopeProfilesList()) {
                    for (var profile : scope.getProfilesList()) {
                        for (Sample sample : profile.getSamplesList()) {
                            walk.add(dictionary, sample, release);
                        }
                    }
                }
            }
        }
        return walk;
    }

    private void add(ProfilesDictionary dictionary, Sample sample, String release) {
        long count = sample.getTimestampsUnixNanoCount();
        samples += count;
        byRelease.merge(release, count, Long::sum);
        if (sample.getLinkIndex() > 0) {
            Link link = dictionary.getLinkTable(sample.getLinkIndex());
            bySpan.merge(HexFormat.of().formatHex(link.getTraceId().toByteArray()) + "/"
                    + HexFormat.of().formatHex(link.getSpanId().toByteArray()), count, Long::sum);
        }
        Set<String> functions = new HashSet<>();
        // the translation gives an empty stack one named frame, so every sample has a function
        for (int index : dictionary.getStackTable(sample.getStackIndex()).getLocationIndicesList()) {
            Location location = dictionary.getLocationTable(index);
            for (Line line : location.getLinesList()) {
                var function = dictionary.getFunctionTable(line.getFunctionIndex());
                functions.add(dictionary.getStringTable(function.getNameStrindex()) + "\u0000"
                        + dictionary.getStringTable(function.getFilenameStrindex()));
            }
        }
        Map<String, Long> totals = functionTotals.computeIfAbsent(release, r -> new HashMap<>());
        functions.forEach(f -> totals.merge(f, count, Long::sum));
    }

    /** Samples linked to a trace. */
    long ofTrace(String traceId) {
        return bySpan.entrySet().stream().filter(e -> e.getKey().startsWith(traceId + "/"))
                .mapToLong(Map.Entry::getValue).sum();
    }

    /** Share of a release's samples in which a function appears. */
    double totalShare(String release, String function) {
        return (double) functionTotals.get(release).getOrDefault(function, 0L) / byRelease.get(release);
    }
}
