package chunkrelay.translate.export;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import io.opentelemetry.proto.profiles.v1development.Profile;
import io.opentelemetry.proto.profiles.v1development.ProfilesDictionary;
import io.opentelemetry.proto.profiles.v1development.ResourceProfiles;
import io.opentelemetry.proto.profiles.v1development.Sample;
import io.opentelemetry.proto.profiles.v1development.ScopeProfiles;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RequestSplitterTest {
    private final SyntheticProfiles profiles = new SyntheticProfiles(12, 20, 5, 40);

    @Test
    void splitsIntoPartsUnderTheLimitThatTogetherHoldEverySampleOnce() throws Exception {
        ExportProfilesServiceRequest request = profiles.request(200);
        long limit = request.getSerializedSize() / 5;

        List<ExportProfilesServiceRequest> parts = split(request, limit);

        assertTrue(parts.size() >= 5, "parts: " + parts.size());
        for (ExportProfilesServiceRequest part : parts) {
            assertTrue(part.getSerializedSize() <= limit, part.getSerializedSize() + " > " + limit);
        }
        assertEverySampleOnceWithItsFramesAndThread(parts, 200);
    }

    @Test
    void prunesEachPartsDictionaryToWhatItsSamplesReference() throws Exception {
        ExportProfilesServiceRequest request = profiles.request(200);
        List<ExportProfilesServiceRequest> parts = split(request, request.getSerializedSize() / 8);

        for (ExportProfilesServiceRequest part : parts) {
            DictionaryInvariants.assertValid(part);
            assertTrue(part.getDictionary().getStringTableList().stream().noneMatch("unused string"::equals));
        }
        ExportProfilesServiceRequest last = parts.get(parts.size() - 1);
        assertTrue(last.getDictionary().getStackTableCount() < request.getDictionary().getStackTableCount()
                        || last.getDictionary().getStringTableCount() < request.getDictionary().getStringTableCount(),
                "the dictionary was pruned");
    }

    @Test
    void everySampleReadsInItsPartExactlyAsInTheWholeRequest() throws Exception {
        ExportProfilesServiceRequest request = profiles.request(200);
        Map<Integer, String> original = new HashMap<>();
        for (Sample sample : request.getResourceProfiles(0).getScopeProfiles(0).getProfiles(0).getSamplesList()) {
            original.put(profiles.sampleNumber(sample), DictionaryInvariants.resolved(request.getDictionary(), sample));
        }
        int compared = 0;
        for (ExportProfilesServiceRequest part : split(request, request.getSerializedSize() / 8)) {
            for (ResourceProfiles resource : part.getResourceProfilesList()) {
                for (ScopeProfiles scope : resource.getScopeProfilesList()) {
                    for (Profile profile : scope.getProfilesList()) {
                        for (Sample sample : profile.getSamplesList()) {
                            int k = profiles.sampleNumber(sample);
                            assertEquals(original.get(k), DictionaryInvariants.resolved(part.getDictionary(), sample),
                                    "sample " + k);
                            compared++;
                        }
                    }
                }
            }
        }
        assertEquals(200, compared);
    }

    @Test
    void keepsResourceScopeAndProfileHeadersOfEverySampleAcrossParts() throws Exception {
        ExportProfilesServiceRequest request = profiles.nestedRequest(160);
        List<ExportProfilesServiceRequest> parts = split(request, request.getSerializedSize() / 6);

        assertEverySampleOnceWithItsFramesAndThread(parts, 160);
        for (ExportProfilesServiceRequest part : parts) {
            DictionaryInvariants.assertValid(part);
            for (ResourceProfiles resource : part.getResourceProfilesList()) {
                String service = resource.getResource().getAttributes(0).getValue().getStringValue();
                for (ScopeProfiles scope : resource.getScopeProfilesList()) {
                    for (Profile profile : scope.getProfilesList()) {
                        assertEquals(9_900_990, profile.getPeriod());
                        assertEquals("samples", part.getDictionary()
                                .getStringTable(profile.getSampleType().getTypeStrindex()));
                        assertEquals("nanoseconds", part.getDictionary()
                                .getStringTable(profile.getPeriodType().getUnitStrindex()));
                        for (Sample sample : profile.getSamplesList()) {
                            int k = profiles.sampleNumber(sample);
                            assertEquals(k < 120 ? "checkout" : "billing", service, "sample " + k);
                            String expectedScope = k < 80 ? "scope-a" : k < 120 ? "scope-b" : "scope-c";
                            assertEquals(expectedScope, scope.getScope().getName(), "sample " + k);
                        }
                    }
                }
            }
        }
    }

    @Test
    void refusesWhenOneSampleWithTheDictionaryExceedsTheLimit() {
        ExportProfilesServiceRequest request = profiles.request(10);
        RequestSplitter splitter = new RequestSplitter(request);
        long limit = request.getDictionary().getSerializedSize() + 20;

        assertThrows(RequestSplitter.TooLargeException.class, () -> splitter.plan(limit));
    }

    private static List<ExportProfilesServiceRequest> split(ExportProfilesServiceRequest request, long limit)
            throws Exception {
        RequestSplitter splitter = new RequestSplitter(request);
        List<ExportProfilesServiceRequest> parts = new ArrayList<>();
        for (List<RequestSplitter.Slice> plan : splitter.plan(limit)) {
            // over the wire and back, as a receiver sees it
            parts.add(ExportProfilesServiceRequest.parseFrom(splitter.build(plan).toByteArray()));
        }
        return parts;
    }

    private void assertEverySampleOnceWithItsFramesAndThread(List<ExportProfilesServiceRequest> parts, int total) {
        boolean[] seen = new boolean[total];
        for (ExportProfilesServiceRequest part : parts) {
            ProfilesDictionary d = part.getDictionary();
            part.getResourceProfilesList().stream()
                    .flatMap(resource -> resource.getScopeProfilesList().stream())
                    .flatMap(scope -> scope.getProfilesList().stream())
                    .flatMap(profile -> profile.getSamplesList().stream())
                    .forEach(sample -> {
                        int k = profiles.sampleNumber(sample);
                        assertTrue(!seen[k], "sample " + k + " twice");
                        seen[k] = true;
                        assertEquals(profiles.expectedFrames(k), DictionaryInvariants.frames(d, sample));
                        assertEquals(profiles.expectedThread(k),
                                d.getAttributeTable(sample.getAttributeIndices(0)).getValue().getIntValue());
                        assertEquals("thread.id", d.getStringTable(
                                d.getAttributeTable(sample.getAttributeIndices(0)).getKeyStrindex()));
                        assertEquals(profiles.timestamps, sample.getTimestampsUnixNanoCount());
                        if (k % 4 == 0) {
                            assertEquals(1 + k % 3, d.getLinkTable(sample.getLinkIndex()).getTraceId().byteAt(0));
                        } else {
                            assertEquals(0, sample.getLinkIndex());
                        }
                    });
        }
        for (int k = 0; k < total; k++) {
            assertTrue(seen[k], "sample " + k + " missing");
        }
    }
}
