package chunkrelay.translate.export;

import chunkrelay.retry.Sleeper;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import io.opentelemetry.proto.profiles.v1development.ProfilesDictionary;
import io.opentelemetry.proto.profiles.v1development.Sample;
import java.time.Clock;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ForkJoinPool;
import org.junit.jupiter.api.Test;

/** The real 64 MiB limit, end to end: a synthetic request just over it arrives as valid parts under it. */
class OversizedRequestExportTest {
    private static final long LIMIT = OtlpExportSettings.DEFAULT_MAX_REQUEST_BYTES;
    private static final int SAMPLES = 1100;
    // 8 000 fixed64 timestamps per sample: about 64 KB each, 1 100 samples are about 70 MB in all
    private final SyntheticProfiles profiles = new SyntheticProfiles(50, 60, 8, 8000);

    @Test
    void splitsARequestOver64MiBIntoValidPartsThatTogetherHoldEverySample() throws Exception {
        byte[] body = serializedRequest();
        assertTrue(body.length > LIMIT, "synthetic request is " + body.length + " bytes");

        BitSet seen = new BitSet();
        List<String> problems = Collections.synchronizedList(new ArrayList<>());
        ExportCounters counters = new ExportCounters();
        DeliveryResult result;
        try (TestCollector collector = TestCollector.start()) {
            collector.inspectWithoutRetaining(part -> inspect(part, seen, problems));
            OtlpExportSettings settings = OtlpExportSettings.builder(collector.endpoint())
                    .compression(Compression.NONE).build();

            result = new OtlpHttpExporter(settings, counters, Clock.systemUTC(), Sleeper.THREAD_SLEEP,
                    ForkJoinPool.commonPool()).export(body);

            assertTrue(result.delivered(), result.reason());
            assertTrue(result.parts() >= 2, "parts: " + result.parts());
            assertEquals(result.parts(), collector.received().size());
            for (TestCollector.Received part : collector.received()) {
                assertTrue(part.decodedLength() <= LIMIT, "part of " + part.decodedLength() + " bytes");
            }
        }
        assertEquals(List.of(), problems);
        assertEquals(SAMPLES, seen.cardinality());
        assertEquals(SAMPLES - 1, seen.previousSetBit(SAMPLES));
        assertEquals(1, counters.splitRequests());
        assertEquals(1, counters.deliveries());
    }

    private byte[] serializedRequest() {
        return profiles.request(SAMPLES).toByteArray();
    }

    /** Runs on the receiver's thread for each part, so no part is kept in memory. */
    private void inspect(ExportProfilesServiceRequest part, BitSet seen, List<String> problems) {
        try {
            DictionaryInvariants.assertValid(part);
            ProfilesDictionary d = part.getDictionary();
            for (Sample sample : part.getResourceProfiles(0).getScopeProfiles(0).getProfiles(0).getSamplesList()) {
                int k = profiles.sampleNumber(sample);
                synchronized (seen) {
                    if (seen.get(k)) {
                        problems.add("sample " + k + " arrived twice");
                    }
                    seen.set(k);
                }
                if (!profiles.expectedFrames(k).equals(DictionaryInvariants.frames(d, sample))
                        || sample.getTimestampsUnixNanoCount() != profiles.timestamps) {
                    problems.add("sample " + k + " changed");
                }
            }
        } catch (AssertionError e) {
            problems.add(e.getMessage());
        }
    }
}
