package chunkrelay.envelope.pipeline;

import chunkrelay.chunk.fixtures.PerfettoTraces;
import chunkrelay.envelope.testing.Envelopes;
import chunkrelay.envelope.testing.PrometheusScrape;
import chunkrelay.envelope.testing.RelayClient;
import chunkrelay.envelope.testing.RunningRelay;
import chunkrelay.storage.ArchivedChunk;
import chunkrelay.storage.EmbeddedS3Server;
import chunkrelay.translate.OtlpInvariants;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import io.opentelemetry.proto.profiles.v1development.KeyValueAndUnit;
import io.opentelemetry.proto.profiles.v1development.Location;
import io.opentelemetry.proto.profiles.v1development.Profile;
import io.opentelemetry.proto.profiles.v1development.ProfilesDictionary;
import io.opentelemetry.proto.profiles.v1development.Sample;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 28 through the running relay: an Android 15+ Perfetto chunk, in the envelope the SDK builds
 * ({@code SentryEnvelopeItem.fromPerfettoProfileChunk}), is archived byte-exact and translated into OTLP; each of
 * Relay's refusals of a Perfetto chunk is counted under its reason, none as the relay's own error.
 */
class PerfettoChunkIngestTest {
    private static final byte[] TRACE = PerfettoTraces.fromTextproto(PerfettoTraces.SYNTHETIC);
    private static final byte[] META =
            PerfettoTraces.metadata(PerfettoTraces.CONTENT_TYPE).getBytes(StandardCharsets.UTF_8);

    @Test
    void perfettoChunkIsArchivedAsSentAndTranslatedWithEveryPerfSampleQualifiedJavaFramesAndMappedNativeOnes()
            throws Exception {
        byte[] payload = PerfettoTraces.payload(META, TRACE);
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             RunningRelay relay = RunningRelay.start(s3, Map.of())) {
            RelayClient.Answer answer = relay.client().post(Envelopes.PATH, Envelopes.withItem(Envelopes.header(),
                    PerfettoTraces.itemHeader(META.length, payload.length), payload), "X-Sentry-Auth", Envelopes.AUTH);
            assertEquals(200, answer.status(), answer.raw());

            List<ArchivedChunk> archived = relay.archivedChunks();
            assertEquals(1, archived.size());
            assertArrayEquals(payload, relay.archive().readSentry(archived.get(0)),
                    "the Sentry form is the SDK's payload: metadata and trace, byte for byte");

            ExportProfilesServiceRequest otlp = ExportProfilesServiceRequest.parseFrom(
                    relay.archive().readOtlp(archived.get(0)));
            assertEquals(List.of(), OtlpInvariants.check(otlp));
            ProfilesDictionary dictionary = otlp.getDictionary();
            Profile profile = otlp.getResourceProfiles(0).getScopeProfiles(0).getProfiles(0);
            long samples = profile.getSamplesList().stream().mapToLong(Sample::getTimestampsUnixNanoCount).sum();
            assertEquals(PerfettoTraces.resolvableSamples(TRACE), samples, "one OTLP sample per perf sample");

            Set<String> functions = dictionary.getFunctionTableList().stream().skip(1)
                    .map(f -> dictionary.getStringTable(f.getNameStrindex())).collect(Collectors.toSet());
            assertTrue(functions.containsAll(List.of("android.os.Looper.loop", "android.app.ActivityThread.main",
                    "io.sentry.samples.android.ProfilingActivity.fibonacci", "__epoll_pwait")), functions.toString());

            List<Location> addressed = dictionary.getLocationTableList().stream().skip(1)
                    .filter(location -> location.getAddress() != 0).toList();
            assertEquals(7, addressed.size(), "the native frames");
            for (Location location : addressed) {
                assertTrue(location.getMappingIndex() > 0, "native frame at " + location.getAddress()
                        + " has no mapping");
            }
            Set<String> mappings = dictionary.getMappingTableList().stream().skip(1)
                    .map(m -> dictionary.getStringTable(m.getFilenameStrindex())).collect(Collectors.toSet());
            assertTrue(mappings.contains("apex/com.android.runtime/lib64/bionic/libc.so"), mappings.toString());

            Set<String> threadNames = dictionary.getAttributeTableList().stream()
                    .filter(a -> dictionary.getStringTable(a.getKeyStrindex()).equals("thread.name"))
                    .map(KeyValueAndUnit::getValue).map(v -> v.getStringValue()).collect(Collectors.toSet());
            assertTrue(threadNames.containsAll(Set.of("main", "RenderThread")), threadNames.toString());

            PrometheusScrape scrape = PrometheusScrape.of(relay.uri());
            assertEquals(1, scrape.value("relay_chunks_accepted_total", "platform", "android"));
        }
    }

    @Test
    void eachRefusalOfAPerfettoChunkIsCountedUnderRelaysReasonAndNoneIsAccepted() throws Exception {
        byte[] noClock = PerfettoTraces.builder().interned(1, true,
                        chunkrelay.chunk.perfetto.proto.PerfettoTraceProto.InternedData.newBuilder()
                                .addFunctionNames(PerfettoTraces.string(1, "f")).addFrames(PerfettoTraces.frame(1, 1))
                                .addCallstacks(PerfettoTraces.callstack(1, 1)).build())
                .sample(5, 1, 1, 1, 1).build();
        byte[] hugePacket = {0x0a, (byte) 0x81, (byte) 0x80, (byte) 0x80, 0x02};
        String missingField = PerfettoTraces.metadata(PerfettoTraces.CONTENT_TYPE)
                .replace("\"profiler_id\":\"" + PerfettoTraces.PROFILER_ID + "\",", "");
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             RunningRelay relay = RunningRelay.start(s3, Map.of())) {
            send(relay, META, TRACE, META.length + TRACE.length + 1);
            send(relay, Envelopes.bytes(missingField), TRACE, -1);
            send(relay, Envelopes.bytes(PerfettoTraces.metadata("application/x-simpleperf")), TRACE, -1);
            send(relay, META, "not a trace".getBytes(StandardCharsets.UTF_8), -1);
            send(relay, META, noClock, -1);
            send(relay, META, new byte[0], -1);
            send(relay, META, hugePacket, -1);

            PrometheusScrape scrape = PrometheusScrape.of(relay.uri());
            assertEquals(0, scrape.valueOrZeroBeforeFirstUse("relay_chunks_accepted_total", "platform", "android"));
            assertEquals(3, scrape.value("relay_chunks_rejected_total", "reason", "profiling_invalid_sampled_profile"));
            assertEquals(1, scrape.value("relay_chunks_rejected_total", "reason", "profiling_invalid_json"));
            assertEquals(1, scrape.value("relay_chunks_rejected_total", "reason", "profiling_platform_not_supported"));
            assertEquals(1, scrape.value("relay_chunks_rejected_total", "reason", "profiling_not_enough_samples"));
            assertEquals(1, scrape.value("relay_chunks_rejected_total", "reason", "profiling_exceed_size_limit"));
            assertEquals(0, scrape.valueOrZeroBeforeFirstUse("relay_chunks_rejected_total", "reason",
                    "internal_error"));
        }
    }

    /** One Perfetto chunk; {@code metaLength} -1 means the metadata's own length. */
    private static void send(RunningRelay relay, byte[] meta, byte[] trace, int metaLength) throws Exception {
        byte[] payload = PerfettoTraces.payload(meta, trace);
        String item = PerfettoTraces.itemHeader(metaLength < 0 ? meta.length : metaLength, payload.length);
        RelayClient.Answer answer = relay.client().post(Envelopes.PATH,
                Envelopes.withItem(Envelopes.header(), item, payload), "X-Sentry-Auth", Envelopes.AUTH);
        assertEquals(200, answer.status(), "Relay drops a bad chunk and takes the envelope: " + answer.raw());
    }
}
