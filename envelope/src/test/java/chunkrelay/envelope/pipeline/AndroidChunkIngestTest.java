package chunkrelay.envelope.pipeline;

import chunkrelay.chunk.fixtures.ArtTraces;
import chunkrelay.envelope.testing.Envelopes;
import chunkrelay.envelope.testing.PrometheusScrape;
import chunkrelay.envelope.testing.RelayClient;
import chunkrelay.envelope.testing.RunningRelay;
import chunkrelay.storage.ArchivedChunk;
import chunkrelay.storage.EmbeddedS3Server;
import chunkrelay.translate.OtlpInvariants;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import io.opentelemetry.proto.profiles.v1development.Profile;
import io.opentelemetry.proto.profiles.v1development.ProfilesDictionary;
import io.opentelemetry.proto.profiles.v1development.Sample;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 15 through the running relay: an Android SDK's ART trace chunk is taken, archived as the SDK sent it and
 * translated into OTLP with JVM-qualified names; a compound item whose metadata names no Perfetto trace is refused
 * with Relay's reason (Perfetto chunks themselves: {@link PerfettoChunkIngestTest}).
 */
class AndroidChunkIngestTest {
    private static final String ANDROID_ITEM = "{\"type\":\"profile_chunk\",\"platform\":\"android\"}";
    private static final long ELAPSED_NANOS = 6_365_893_000L;

    @Test
    void artTraceChunkIsArchivedAsSentAndTranslatedWithQualifiedJvmNamesInItsTimeWindow() throws Exception {
        byte[] chunk = ArtTraces.wrappedChunk(ArtTraces.realSamplingTrace());
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             RunningRelay relay = RunningRelay.start(s3, Map.of())) {
            RelayClient.Answer answer = relay.client().post(Envelopes.PATH,
                    Envelopes.withItem(Envelopes.header(), ANDROID_ITEM, chunk), "X-Sentry-Auth", Envelopes.AUTH);
            assertEquals(200, answer.status(), answer.raw());

            List<ArchivedChunk> archived = relay.archivedChunks();
            assertEquals(1, archived.size());
            assertArrayEquals(chunk, relay.archive().readSentry(archived.get(0)),
                    "the Sentry form is the payload as the SDK sent it, base64 trace included");

            ExportProfilesServiceRequest otlp = ExportProfilesServiceRequest.parseFrom(
                    relay.archive().readOtlp(archived.get(0)));
            assertEquals(List.of(), OtlpInvariants.check(otlp));
            ProfilesDictionary dictionary = otlp.getDictionary();
            Set<String> functionNames = dictionary.getFunctionTableList().stream().skip(1)
                    .map(f -> dictionary.getStringTable(f.getNameStrindex())).collect(Collectors.toSet());
            assertTrue(functionNames.contains("android.os.Looper.loop"), "qualified names: " + functionNames.stream()
                    .limit(20).toList());
            // the trace's records name 18 method ids missing from its *methods table; those cannot be qualified
            assertEquals(List.of(), functionNames.stream()
                            .filter(name -> !name.contains(".") && !name.matches("unknown \\(id 0x[0-9a-f]+\\)"))
                            .toList(),
                    "every JVM function of the table is package.Class.method");

            Profile profile = otlp.getResourceProfiles(0).getScopeProfiles(0).getProfiles(0);
            long start = (long) (ArtTraces.WRAPPED_TIMESTAMP * 1e9);
            long samples = 0;
            for (Sample sample : profile.getSamplesList()) {
                for (long timestamp : sample.getTimestampsUnixNanoList()) {
                    samples++;
                    assertTrue(timestamp >= start - 1_000 && timestamp <= start + ELAPSED_NANOS,
                            "sample at " + timestamp + " outside the trace's window");
                }
            }
            assertTrue(samples > 30_000, "samples at the estimated interval: " + samples);

            PrometheusScrape scrape = PrometheusScrape.of(relay.uri());
            assertEquals(1, scrape.value("relay_chunks_accepted_total", "platform", "android"));
        }
    }

    @Test
    void compoundItemWithoutAPerfettoContentTypeIsRefusedAsPlatformNotSupported() throws Exception {
        byte[] meta = Envelopes.bytes("{\"platform\":\"android\",\"version\":\"2\",\"chunk_id\":"
                + "\"0432a0a4c25f4697bf9f0a2fcbe6a814\",\"profiler_id\":\"4d229f1d3807421ba62a5f8bc295d836\"}");
        byte[] payload = new byte[meta.length + 8];
        System.arraycopy(meta, 0, payload, 0, meta.length);
        String item = "{\"type\":\"profile_chunk\",\"platform\":\"android\",\"content_type\":"
                + "\"application/x-perfetto-trace\",\"meta_length\":" + meta.length + ",\"length\":" + payload.length + "}";
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             RunningRelay relay = RunningRelay.start(s3, Map.of())) {
            RelayClient.Answer answer = relay.client().post(Envelopes.PATH,
                    Envelopes.withItem(Envelopes.header(), item, payload), "X-Sentry-Auth", Envelopes.AUTH);
            assertEquals(200, answer.status(), "Relay drops a bad chunk and takes the envelope");
            PrometheusScrape scrape = PrometheusScrape.of(relay.uri());
            assertEquals(0, scrape.valueOrZeroBeforeFirstUse("relay_chunks_accepted_total", "platform", "android"));
            assertEquals(1, scrape.value("relay_chunks_rejected_total", "reason", "profiling_platform_not_supported"));
        }
    }
}
