package chunkrelay.translate;

import chunkrelay.translate.view.MergedProfile;
import chunkrelay.translate.view.ProfileMerger;
import chunkrelay.translate.view.ViewFilter;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.profiles.v1development.Profile;
import io.opentelemetry.proto.profiles.v1development.ProfilesDictionary;
import io.opentelemetry.proto.profiles.v1development.Stack;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * OTLP archived before the translation said what was sampled still reads in the views as it said it: its profiler id
 * on the resource, its period type {@code cpu}, its empty stacks without a frame.
 */
class ArchivedBeforeSampleTypesTest {
    private static final ChunkTranslator TRANSLATOR = new ChunkTranslator("chunk-relay", "test");

    /** A chunk of 2 samples in {@code run} and 3 idle ones, in the form the translation wrote before. */
    private static ExportProfilesServiceRequest archivedBefore() {
        TestChunk chunk = new TestChunk();
        int run = chunk.stack(chunk.frame(TestChunk.function("run", "t.py", 1)));
        int idle = chunk.stack();
        for (int ms = 0; ms < 5; ms++) {
            chunk.sample(ms * 10_000_000L, ms < 2 ? run : idle, "1");
        }
        ExportProfilesServiceRequest now = TRANSLATOR.translate(chunk.build(), TranslationContext.forProject(1));
        ExportProfilesServiceRequest.Builder before = now.toBuilder();
        ProfilesDictionary.Builder dictionary = before.getDictionaryBuilder();
        Profile.Builder profile = before.getResourceProfilesBuilder(0).getScopeProfilesBuilder(0)
                .getProfilesBuilder(0);
        // the profiler id on the resource, the period type cpu, the idle samples on the empty stack 0
        profile.clearAttributeIndices();
        before.getResourceProfilesBuilder(0).getResourceBuilder().addAttributes(KeyValue.newBuilder()
                .setKey(OtlpAttributes.SENTRY_PROFILER_ID)
                .setValue(AnyValue.newBuilder().setStringValue(TestChunk.PROFILER_ID.toHex())));
        dictionary.setStringTable(profile.getPeriodType().getTypeStrindex(), "cpu");
        for (int s = 0; s < profile.getSamplesCount(); s++) {
            Stack stack = dictionary.getStackTable(profile.getSamples(s).getStackIndex());
            if (stack.getLocationIndicesCount() == 1 && dictionary.getStringTable(dictionary.getFunctionTable(
                    dictionary.getLocationTable(stack.getLocationIndices(0)).getLines(0).getFunctionIndex())
                    .getNameStrindex()).equals(ProfileTypes.IDLE_FRAME)) {
                profile.getSamplesBuilder(s).setStackIndex(0);
            }
        }
        return before.build();
    }

    @Test
    void readsTheProfilerOffTheResourceAndNamesEmptyStacksByTheTypeItSaid() {
        ProfileMerger merger = new ProfileMerger(new ViewFilter(Long.MIN_VALUE, Long.MAX_VALUE,
                TestChunk.PROFILER_ID.toHex(), null, null, null));
        merger.add(archivedBefore());
        MergedProfile merged = merger.result();

        assertEquals(5, merged.sampleCount(), "the profiler filter finds the chunk by its resource attribute");
        assertEquals(List.of(TestChunk.PROFILER_ID.toHex()),
                merged.threads().stream().map(MergedProfile.Thread::profilerId).toList());
        assertEquals(Set.of("cpu"), merged.sampleTypes());
        assertEquals(List.of(ProfileTypes.NO_STACK_FRAME, "run"),
                merged.functions().stream().map(MergedProfile.Function::name).sorted().toList());
    }
}
