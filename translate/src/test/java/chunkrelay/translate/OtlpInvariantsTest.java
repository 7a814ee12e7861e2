package chunkrelay.translate;

import com.google.protobuf.ByteString;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.profiles.v1development.Function;
import io.opentelemetry.proto.profiles.v1development.Link;
import io.opentelemetry.proto.profiles.v1development.Profile;
import io.opentelemetry.proto.profiles.v1development.ProfilesData;
import io.opentelemetry.proto.profiles.v1development.Sample;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class OtlpInvariantsTest {
    private static final long MS = 1_000_000L;

    /** A valid request: two threads, two stacks, thread names, a measurement. */
    private static ExportProfilesServiceRequest valid() {
        TestChunk chunk = new TestChunk().thread("1", "main", null);
        int a = chunk.frame(TestChunk.function("a", "a.py", 1));
        int b = chunk.frame(TestChunk.function("b", "b.py", 2));
        int ab = chunk.stack(a, b);
        int bOnly = chunk.stack(b);
        chunk.sample(0, ab, "1").sample(1 * MS, bOnly, "2").sample(10 * MS, bOnly, "1").sample(11 * MS, ab, "2");
        return new ChunkTranslator("chunk-relay", "test").translate(chunk.build(), TranslationContext.forProject(1));
    }

    private static Set<Integer> brokenBy(Consumer<ExportProfilesServiceRequest.Builder> change) {
        ExportProfilesServiceRequest.Builder request = valid().toBuilder();
        change.accept(request);
        return OtlpInvariants.check(request.build()).stream()
                .map(OtlpInvariants.Violation::invariant).collect(Collectors.toSet());
    }

    private static Profile.Builder profile(ExportProfilesServiceRequest.Builder request) {
        return request.getResourceProfilesBuilder(0).getScopeProfilesBuilder(0).getProfilesBuilder(0);
    }

    @Test
    void acceptsATranslatedRequestInEveryForm() {
        ExportProfilesServiceRequest request = valid();
        assertEquals(List.of(), OtlpInvariants.check(request));
        assertEquals(List.of(), OtlpInvariants.check(request.toByteArray()));
        assertEquals(List.of(), OtlpInvariants.check(ProfilesData.newBuilder()
                .addAllResourceProfiles(request.getResourceProfilesList())
                .setDictionary(request.getDictionary()).build()));
    }

    @Test
    void flagsAMissingTableOrANonZeroFirstElement() {
        assertTrue(brokenBy(r -> r.getDictionaryBuilder().clearLinkTable()).contains(1));
        assertTrue(brokenBy(r -> r.getDictionaryBuilder().setStringTable(0, "x")).contains(1));
        assertTrue(brokenBy(r -> r.getDictionaryBuilder().setLinkTable(0, Link.getDefaultInstance())).contains(1));
    }

    @Test
    void flagsIndicesOutsideTheirTable() {
        assertEquals(Set.of(2), brokenBy(r -> profile(r).getSamplesBuilder(0).setLinkIndex(5)));
        assertTrue(brokenBy(r -> profile(r).getSamplesBuilder(0).setStackIndex(99)).contains(2));
        assertTrue(brokenBy(r -> r.getDictionaryBuilder().getLocationTableBuilder(1).getLinesBuilder(0)
                .setFunctionIndex(-1)).contains(2));
        assertTrue(brokenBy(r -> r.getDictionaryBuilder().getFunctionTableBuilder(1).setFilenameStrindex(1000))
                .contains(2));
    }

    @Test
    void flagsDuplicatesAndOrphans() {
        assertEquals(Set.of(3), brokenBy(r -> r.getDictionaryBuilder().addStringTable("nobody uses me")));
        assertEquals(Set.of(3), brokenBy(r -> r.getDictionaryBuilder()
                .addFunctionTable(r.getDictionary().getFunctionTable(1))));
        List<OtlpInvariants.Violation> violations = OtlpInvariants.check(valid().toBuilder()
                .setDictionary(valid().getDictionary().toBuilder().addStringTable("a")).build());
        assertTrue(violations.stream().anyMatch(v -> v.detail().contains("duplicates")), violations.toString());
    }

    @Test
    void flagsSamplesWithoutDataOrMismatchedCountsOrRepeatedKeysOrUnmergedIdentity() {
        assertTrue(brokenBy(r -> profile(r).getSamplesBuilder(0).clearTimestampsUnixNano()).contains(4));
        assertEquals(Set.of(4), brokenBy(r -> profile(r).getSamplesBuilder(0).addValues(1).addValues(2).addValues(3)));
        assertEquals(Set.of(4), brokenBy(r -> profile(r).getSamplesBuilder(0)
                .addAttributeIndices(profile(r).getSamples(0).getAttributeIndices(0))));
        assertEquals(Set.of(4), brokenBy(r -> profile(r).addSamples(Sample.newBuilder(profile(r).getSamples(0)).build())));
    }

    @Test
    void flagsTimestampsOutsideTheProfileWindow() {
        assertEquals(Set.of(5), brokenBy(r -> profile(r).setTimeUnixNano(profile(r).getTimeUnixNano() + 1)));
        assertEquals(Set.of(5), brokenBy(r -> profile(r).setDurationNano(11 * MS)));
    }

    @Test
    void flagsMissingSampleTypeOrPeriod() {
        assertEquals(Set.of(6), brokenBy(r -> profile(r).setPeriod(0)));
        assertTrue(brokenBy(r -> profile(r).clearSampleType()).contains(6));
        assertTrue(brokenBy(r -> profile(r).clearPeriodType()).contains(6));
    }

    @Test
    void flagsMalformedProfileAndLinkIds() {
        assertEquals(Set.of(7), brokenBy(r -> profile(r).setProfileId(ByteString.copyFrom(new byte[8]))));
        assertEquals(Set.of(7), brokenBy(r -> profile(r).setProfileId(ByteString.copyFrom(new byte[16]))));
        assertEquals(Set.of(), brokenBy(r -> profile(r).clearProfileId()));
        assertTrue(brokenBy(r -> r.getDictionaryBuilder().addLinkTable(Link.newBuilder()
                .setTraceId(ByteString.copyFrom(new byte[4])).setSpanId(ByteString.copyFrom(new byte[8]))))
                .contains(7));
    }

    @Test
    void flagsAnOriginalPayloadWithoutFormat() {
        assertEquals(Set.of(8), brokenBy(r -> profile(r).setOriginalPayloadFormat("jfr")));
        assertEquals(Set.of(8), brokenBy(r -> profile(r).setOriginalPayload(ByteString.copyFromUtf8("x"))));
    }

    @Test
    void flagsAFunctionWithoutAnyName() {
        // the strings the function named become orphans too
        assertTrue(brokenBy(r -> r.getDictionaryBuilder().setFunctionTable(1, Function.newBuilder().setStartLine(3)))
                .contains(9));
    }

    @Test
    void flagsResourceAttributesThatReferToTheStringTable() {
        assertEquals(Set.of(10), brokenBy(r -> r.getResourceProfilesBuilder(0).getResourceBuilder()
                .addAttributes(KeyValue.newBuilder().setKeyStrindex(1)
                        .setValue(AnyValue.newBuilder().setStringValue("x")))));
        assertEquals(Set.of(10), brokenBy(r -> r.getResourceProfilesBuilder(0).getScopeProfilesBuilder(0)
                .getScopeBuilder().addAttributes(KeyValue.newBuilder().setKey("k")
                        .setValue(AnyValue.newBuilder().setStringValueStrindex(1)))));
    }

    @Test
    void flagsARequestWithoutSamples() {
        assertTrue(brokenBy(r -> profile(r).clearSamples()).contains(11));
    }

    @Test
    void assertValidListsEveryViolation() {
        ExportProfilesServiceRequest broken = valid().toBuilder()
                .setDictionary(valid().getDictionary().toBuilder().addStringTable("orphan")).build();
        AssertionError error = assertThrows(AssertionError.class, () -> OtlpInvariants.assertValid(broken));
        assertTrue(error.getMessage().contains("invariant 3: string_table["), error.getMessage());
        assertThrows(IllegalArgumentException.class, () -> OtlpInvariants.check(new byte[] {(byte) 0xff}));
    }
}
