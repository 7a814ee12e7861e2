package chunkrelay.chunk;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;
import java.util.stream.Stream;

import static chunkrelay.chunk.ChunkRejectionReason.DURATION_IS_TOO_LONG;
import static chunkrelay.chunk.ChunkRejectionReason.EXCEED_SIZE_LIMIT;
import static chunkrelay.chunk.ChunkRejectionReason.INVALID_JSON;
import static chunkrelay.chunk.ChunkRejectionReason.INVALID_PROFILE_TYPE;
import static chunkrelay.chunk.ChunkRejectionReason.INVALID_SAMPLED_PROFILE;
import static chunkrelay.chunk.ChunkRejectionReason.MALFORMED_SAMPLES;
import static chunkrelay.chunk.ChunkRejectionReason.MALFORMED_STACKS;
import static chunkrelay.chunk.ChunkRejectionReason.NOT_ENOUGH_SAMPLES;
import static chunkrelay.chunk.ChunkRejectionReason.PLATFORM_NOT_SUPPORTED;
import static chunkrelay.chunk.TestChunks.addSample;
import static chunkrelay.chunk.TestChunks.frames;
import static chunkrelay.chunk.TestChunks.profile;
import static chunkrelay.chunk.TestChunks.samples;
import static chunkrelay.chunk.TestChunks.stacks;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One case per rule and per reason, in Relay's order: each case is a payload and item header, and the
 * outcome Relay gives (accepted, or the reason and a fragment of the detail naming the field or index).
 */
class ChunkRulesTest {
    private static final ChunkItemHeader JSON_ITEM = new ChunkItemHeader(null, null);

    record Case(String name, byte[] payload, ChunkItemHeader header, ChunkRejectionReason reason, String detail) {
        @Override
        public String toString() {
            return name;
        }
    }

    private static Case accepts(String name, Consumer<ObjectNode> change) {
        return new Case(name, mutated(change), JSON_ITEM, null, null);
    }

    private static Case rejects(String name, Consumer<ObjectNode> change, ChunkRejectionReason reason, String detail) {
        return new Case(name, mutated(change), JSON_ITEM, reason, detail);
    }

    private static Case rejectsRaw(String name, String payload, ChunkRejectionReason reason, String detail) {
        return new Case(name, payload.getBytes(StandardCharsets.UTF_8), JSON_ITEM, reason, detail);
    }

    private static byte[] mutated(Consumer<ObjectNode> change) {
        ObjectNode root = TestChunks.valid();
        change.accept(root);
        return TestChunks.bytes(root);
    }

    private static String validText() {
        return new String(TestChunks.bytes(TestChunks.valid()), StandardCharsets.UTF_8);
    }

    private static String nested(int depth) {
        return "[".repeat(depth) + "]".repeat(depth);
    }

    static Stream<Case> cases() {
        return Stream.of(
                // item header, before the payload is read
                new Case("metaLengthOnJsonItemIsInvalidSampledProfile", TestChunks.bytes(TestChunks.valid()),
                        new ChunkItemHeader("python", null, 10L), INVALID_SAMPLED_PROFILE, "meta_length"),
                new Case("metaLengthWinsOverBrokenJson", "{".getBytes(StandardCharsets.UTF_8),
                        new ChunkItemHeader(null, null, 1L), INVALID_SAMPLED_PROFILE, "meta_length"),
                new Case("perfettoItemWithoutMetaLengthIsInvalidSampledProfile", new byte[] {1, 2, 3},
                        new ChunkItemHeader("android", "application/x-perfetto-trace"), INVALID_SAMPLED_PROFILE,
                        "meta_length"),
                new Case("perfettoItemWithoutPlatformIsPlatformNotSupported", new byte[] {1, 2, 3},
                        new ChunkItemHeader(null, "application/x-perfetto-trace", 1L), PLATFORM_NOT_SUPPORTED,
                        "platform"),

                // minimal parse
                rejectsRaw("emptyPayloadIsInvalidJson", "", INVALID_JSON, "the chunk"),
                rejectsRaw("syntaxErrorIsInvalidJson", "{\"platform\":\"python\",}", INVALID_JSON, "line 1"),
                rejectsRaw("truncatedJsonIsInvalidJson", validText().substring(0, 200), INVALID_JSON, "not valid JSON"),
                rejectsRaw("rootArrayIsInvalidJson", "[1,2]", INVALID_JSON, "the chunk"),
                rejectsRaw("byteOrderMarkIsInvalidJson", "\uFEFF" + validText(), INVALID_JSON, "byte order mark"),
                new Case("utf16ChunkIsInvalidJson", validText().getBytes(StandardCharsets.UTF_16LE), JSON_ITEM,
                        INVALID_JSON, "UTF-8"),
                rejects("missingPlatformIsInvalidJson", r -> r.remove("platform"), INVALID_JSON, "platform"),
                rejects("numericPlatformIsInvalidJson", r -> r.put("platform", 3), INVALID_JSON, "platform"),
                rejects("unknownVersionIsInvalidJson", r -> r.put("version", "3"), INVALID_JSON, "version"),
                rejects("numericVersionIsInvalidJson", r -> r.put("version", 2), INVALID_JSON, "version"),
                rejects("nullVersionIsInvalidJson", r -> r.putNull("version"), INVALID_JSON, "version"),
                rejectsRaw("duplicatePlatformIsInvalidJson",
                        "{\"platform\":\"python\",\"platform\":\"python\",\"version\":\"2\"}", INVALID_JSON, "duplicate"),
                rejectsRaw("nestingDeeperThanSerdeJsonAllowsIsInvalidJson",
                        "{\"platform\":\"python\",\"version\":\"2\",\"x\":" + nested(ChunkProcessor.MAX_NESTING_DEPTH) + "}",
                        INVALID_JSON, "nesting"),
                rejectsRaw("brokenJsonAfterTheRoutingFieldsIsInvalidJson",
                        "{\"platform\":\"python\",\"version\":\"1\",\"x\":[}", INVALID_JSON, "not valid JSON"),

                // version dispatch
                rejects("missingVersionIsPlatformNotSupported", r -> r.remove("version"), PLATFORM_NOT_SUPPORTED,
                        "version"),
                rejects("version1IsPlatformNotSupported", r -> r.put("version", "1"), PLATFORM_NOT_SUPPORTED,
                        "version 1"),
                rejects("version1WinsOverALaterSchemaError", r -> {
                    r.put("version", "1");
                    r.put("profiler_id", 5);
                }, PLATFORM_NOT_SUPPORTED, "version 1"),
                rejects("androidWithoutVersionIsAndroidFormatNotSupported", r -> {
                    r.put("platform", "android");
                    r.remove("version");
                }, PLATFORM_NOT_SUPPORTED, "Android"),
                rejects("androidTraceChunkTakesTheArtPathWhereTimestampIsRequired", r -> {
                    r.put("platform", "android");
                    r.put("sampled_profile", "AAAA");
                }, INVALID_JSON, "timestamp"),
                rejects("androidTraceVersionOnCocoaIsPlatformNotSupported", r -> {
                    r.put("platform", "cocoa");
                    r.put("version", "2.android-trace");
                }, PLATFORM_NOT_SUPPORTED, "2.android-trace"),
                rejectsRaw("duplicateSampledProfileOnAValidChunkIsInvalidJson",
                        validText().replaceFirst("\\{", "{\"sampled_profile\":null,\"sampled_profile\":null,"),
                        INVALID_JSON, "duplicate field sampled_profile"),
                accepts("androidV2WithNullSampledProfileIsSampleV2", r -> {
                    r.put("platform", "android");
                    r.putNull("sampled_profile");
                }),

                // full parse: required fields and types
                rejects("missingChunkIdIsInvalidJson", r -> r.remove("chunk_id"), INVALID_JSON, "chunk_id"),
                rejects("chunkIdUnderTwoOfItsNamesIsADuplicateField",
                        r -> r.put("event_id", "0432a0a4c25f4697bf9f0a2fcbe6a814"), INVALID_JSON, "duplicate"),
                rejects("numericReleaseIsInvalidJson", r -> r.put("release", 1), INVALID_JSON, "release"),
                rejects("chunkIdNotAUuidIsInvalidJson", r -> r.put("chunk_id", "0432a0a4c25f"), INVALID_JSON, "chunk_id"),
                accepts("chunkIdDashedUppercaseIsAccepted", r -> r.put("chunk_id", "0432A0A4-C25F-4697-BF9F-0A2FCBE6A814")),
                rejects("numericProfilerIdIsInvalidJson", r -> r.put("profiler_id", 1), INVALID_JSON, "profiler_id"),
                rejects("missingClientSdkIsInvalidJson", r -> r.remove("client_sdk"), INVALID_JSON, "client_sdk"),
                rejects("nullClientSdkIsInvalidJson", r -> r.putNull("client_sdk"), INVALID_JSON, "client_sdk"),
                rejects("clientSdkWithoutVersionIsInvalidJson", r -> ((ObjectNode) r.get("client_sdk")).remove("version"),
                        INVALID_JSON, "client_sdk.version"),
                accepts("missingReleaseIsAccepted", r -> r.remove("release")),
                accepts("nullEnvironmentIsAccepted", r -> r.putNull("environment")),
                rejects("numericEnvironmentIsInvalidJson", r -> r.put("environment", 1), INVALID_JSON, "environment"),
                rejects("missingProfileIsInvalidJson", r -> r.remove("profile"), INVALID_JSON, "profile"),
                rejects("nullProfileIsInvalidJson", r -> r.putNull("profile"), INVALID_JSON, "profile"),
                rejects("missingSamplesIsInvalidJson", r -> profile(r).remove("samples"), INVALID_JSON, "profile.samples"),
                rejects("missingStacksIsInvalidJson", r -> profile(r).remove("stacks"), INVALID_JSON, "profile.stacks"),
                rejects("missingFramesIsInvalidJson", r -> profile(r).remove("frames"), INVALID_JSON, "profile.frames"),
                accepts("missingThreadMetadataIsAccepted", r -> profile(r).remove("thread_metadata")),
                rejects("nullThreadMetadataIsInvalidJson", r -> profile(r).putNull("thread_metadata"), INVALID_JSON,
                        "thread_metadata"),
                rejects("threadPriorityNegativeIsInvalidJson",
                        r -> ((ObjectNode) profile(r).get("thread_metadata").get("1")).put("priority", -1), INVALID_JSON,
                        "priority"),
                rejects("nullDebugMetaIsInvalidJson", r -> r.putNull("debug_meta"), INVALID_JSON, "debug_meta"),
                rejects("debugMetaWithoutImagesIsInvalidJson", r -> r.putObject("debug_meta"), INVALID_JSON,
                        "debug_meta.images"),
                rejects("unknownDebugImageTypeIsInvalidJson",
                        r -> r.putObject("debug_meta").putArray("images").addObject().put("type", "elf"), INVALID_JSON,
                        "debug_meta.images[0].type"),
                accepts("debugImageWithImageSizeAsStringIsAccepted",
                        r -> r.putObject("debug_meta").putArray("images").addObject().put("type", "macho")
                                .put("image_size", "4096").put("image_addr", "0x1000")),
                rejects("nullMeasurementsIsInvalidJson", r -> r.putNull("measurements"), INVALID_JSON, "measurements"),
                rejects("unknownMeasurementUnitIsInvalidJson", r -> r.putObject("measurements").putObject("cpu")
                        .put("unit", "ms").putArray("values"), INVALID_JSON, "measurements.cpu.unit"),
                rejects("measurementValueWithoutValueIsInvalidJson", r -> r.putObject("measurements").putObject("cpu")
                        .put("unit", "percent").putArray("values").addObject().put("timestamp", 1.0), INVALID_JSON,
                        "measurements.cpu.values[0].value"),
                rejects("numericThreadIdIsInvalidJson", r -> ((ObjectNode) samples(r).get(1)).put("thread_id", 1),
                        INVALID_JSON, "profile.samples[1].thread_id"),
                rejects("negativeStackIdIsInvalidJson", r -> ((ObjectNode) samples(r).get(2)).put("stack_id", -1),
                        INVALID_JSON, "profile.samples[2].stack_id"),
                rejects("floatStackIdIsInvalidJson", r -> ((ObjectNode) samples(r).get(0)).put("stack_id", 1.0),
                        INVALID_JSON, "profile.samples[0].stack_id"),
                rejects("stringStackIdIsInvalidJson", r -> ((ObjectNode) samples(r).get(0)).put("stack_id", "0"),
                        INVALID_JSON, "profile.samples[0].stack_id"),
                rejects("stackIdPastU64IsInvalidJson", r -> ((ObjectNode) samples(r).get(0))
                        .put("stack_id", BigInteger.ONE.shiftLeft(64)), INVALID_JSON, "profile.samples[0].stack_id"),
                rejects("stringTimestampIsInvalidJson", r -> ((ObjectNode) samples(r).get(0)).put("timestamp", "100"),
                        INVALID_JSON, "profile.samples[0].timestamp"),
                rejectsRaw("infiniteTimestampIsInvalidJson", validText().replace("100.01", "1e400"), INVALID_JSON,
                        "profile.samples[1].timestamp"),
                rejects("missingTimestampIsInvalidJson", r -> ((ObjectNode) samples(r).get(0)).remove("timestamp"),
                        INVALID_JSON, "profile.samples[0].timestamp"),
                rejects("nullSampleIsInvalidJson", r -> samples(r).addNull(), INVALID_JSON, "profile.samples[3]"),
                rejectsRaw("duplicateStackIdInSampleIsInvalidJson",
                        validText().replace("\"stack_id\":1", "\"stack_id\":1,\"stack_id\":1"), INVALID_JSON,
                        "profile.samples[1].stack_id: duplicate"),
                rejectsRaw("loneSurrogateEscapeInThreadIdIsInvalidJson",
                        validText().replaceFirst("\"thread_id\":\"1\"", "\"thread_id\":\"\\\\ud800\""), INVALID_JSON,
                        "profile.samples[0].thread_id"),
                new Case("surrogatePairEscapeInFunctionIsAccepted", validText()
                        .replace("\"f1\"", "\"\\ud83d\\ude00\"").getBytes(StandardCharsets.UTF_8), JSON_ITEM, null, null),
                rejects("negativeFrameIndexIsInvalidJson", r -> ((ArrayNode) stacks(r).get(0)).add(-2), INVALID_JSON,
                        "profile.stacks[0][2]"),
                rejects("negativeLinenoIsInvalidJson", r -> ((ObjectNode) frames(r).get(0)).put("lineno", -1),
                        INVALID_JSON, "profile.frames[0].lineno"),
                rejects("linenoPastU32IsInvalidJson", r -> ((ObjectNode) frames(r).get(0)).put("lineno", 4294967296L),
                        INVALID_JSON, "profile.frames[0].lineno"),
                accepts("linenoAtU32MaxIsAccepted", r -> ((ObjectNode) frames(r).get(0)).put("lineno", 4294967295L)),
                rejects("numericInstructionAddrIsInvalidJson",
                        r -> ((ObjectNode) frames(r).get(0)).put("instruction_addr", 4096), INVALID_JSON,
                        "profile.frames[0].instruction_addr"),
                rejects("nonHexInstructionAddrIsInvalidJson",
                        r -> ((ObjectNode) frames(r).get(0)).put("instruction_addr", "0xzz"), INVALID_JSON,
                        "profile.frames[0].instruction_addr"),
                rejects("columnAndColnoTogetherAreADuplicateField",
                        r -> ((ObjectNode) frames(r).get(0)).put("colno", 1).put("column", 2), INVALID_JSON,
                        "duplicate"),
                rejects("stringInAppIsInvalidJson", r -> ((ObjectNode) frames(r).get(0)).put("in_app", "true"),
                        INVALID_JSON, "profile.frames[0].in_app"),
                accepts("unknownFieldsAnywhereAreSkipped", r -> {
                    r.putObject("extra").putArray("deep").addObject().put("x", 1);
                    ((ObjectNode) frames(r).get(0)).put("vars", "ignored");
                    ((ObjectNode) samples(r).get(0)).putObject("extra");
                }),
                new Case("headerPlatformMismatchWinsOverALaterSchemaError",
                        validText().replace("\"thread_id\":\"1\"", "\"thread_id\":1").getBytes(StandardCharsets.UTF_8),
                        new ChunkItemHeader("node", null), INVALID_PROFILE_TYPE, "\"node\""),
                new Case("headerPlatformMismatchWinsOverVersionDispatch", mutated(r -> r.put("version", "1")),
                        new ChunkItemHeader("node", null), INVALID_PROFILE_TYPE, "\"python\""),
                new Case("minimalParseErrorWinsOverHeaderPlatformMismatch", mutated(r -> r.remove("chunk_id")),
                        new ChunkItemHeader("node", null), INVALID_JSON, "chunk_id"),
                new Case("trailingBytesAfterTheRootObjectAreIgnoredAsInRelay",
                        (validText() + " }{ trailing").getBytes(StandardCharsets.UTF_8), JSON_ITEM, null, null),
                new Case("nestingAsDeepAsSerdeJsonAllowsIsAccepted",
                        validText().replaceFirst("\\{", "{\"x\":" + nested(ChunkProcessor.MAX_NESTING_DEPTH - 1) + ",")
                                .getBytes(StandardCharsets.UTF_8), JSON_ITEM, null, null),

                // normalisation
                rejects("noSamplesIsNotEnoughSamples", r -> samples(r).removeAll(), NOT_ENOUGH_SAMPLES, "empty"),
                rejects("singleSamplePerThreadIsNotEnoughSamples", r -> {
                    samples(r).remove(2);
                    samples(r).remove(1);
                }, NOT_ENOUGH_SAMPLES, "2 or more"),
                rejects("onlyEmptyStacksIsNotEnoughSamples", r -> {
                    stacks(r).addArray();
                    for (var s : samples(r)) {
                        ((ObjectNode) s).put("stack_id", 2);
                    }
                }, NOT_ENOUGH_SAMPLES, "non-empty"),
                rejects("stackIdOutOfRangeIsMalformedSamples", r -> addSample(samples(r), 100.03, "1", 7),
                        MALFORMED_SAMPLES, "profile.samples[3].stack_id 7"),
                rejects("stackIdAtU64MaxIsMalformedSamples", r -> samples(r).add(TestChunks.sample(100.03, "1", 0)
                        .put("stack_id", new BigInteger("18446744073709551615"))), MALFORMED_SAMPLES,
                        "profile.samples[3].stack_id"),
                accepts("badStackIdOnAPrunedThreadIsDroppedBeforeTheCheck",
                        r -> addSample(samples(r), 100.03, "2", 7)),
                rejects("frameIndexOutOfRangeIsMalformedStacks", r -> ((ArrayNode) stacks(r).get(1)).add(5),
                        MALFORMED_STACKS, "profile.stacks[1][1] references frame 5"),
                rejects("unreferencedStackWithBadFrameIsStillMalformedStacks", r -> stacks(r).addArray().add(9),
                        MALFORMED_STACKS, "profile.stacks[2][0]"),
                accepts("sixtySixSecondsExactlyIsAccepted", r -> ((ObjectNode) samples(r).get(2)).put("timestamp", 166.0)),
                rejects("overSixtySixSecondsIsDurationTooLong",
                        r -> ((ObjectNode) samples(r).get(2)).put("timestamp", 166.000001), DURATION_IS_TOO_LONG,
                        "66000 ms"),
                rejects("durationCountsOnlySamplesLeftAfterPruning", r -> {
                    addSample(samples(r), 500.0, "1", 0);
                    addSample(samples(r), 500.0, "2", 0);
                }, DURATION_IS_TOO_LONG, "400000 ms"),
                accepts("farSampleOnAPrunedThreadDoesNotCountForDuration", r -> addSample(samples(r), 500.0, "2", 0)),

                // item header platform, after the full parse
                new Case("headerPlatformDifferentFromPayloadIsInvalidProfileType", TestChunks.bytes(TestChunks.valid()),
                        new ChunkItemHeader("node", null), INVALID_PROFILE_TYPE, "\"node\""),
                new Case("headerPlatformEqualToPayloadIsAccepted", TestChunks.bytes(TestChunks.valid()),
                        new ChunkItemHeader("python", null), null, null),
                new Case("headerPlatformMismatchWinsOverNormalisation", mutated(r -> samples(r).removeAll()),
                        new ChunkItemHeader("node", null), INVALID_PROFILE_TYPE, "platform"),

                // size
                new Case("chunkOverTheLimitIsExceedSizeLimit", TestChunks.bytes(TestChunks.valid()), JSON_ITEM,
                        EXCEED_SIZE_LIMIT, "exceeds the limit of 200 bytes"),
                new Case("normalisationRuleWinsOverSizeLimit", mutated(r -> samples(r).removeAll()), JSON_ITEM,
                        NOT_ENOUGH_SAMPLES, "empty"));
    }

    @org.junit.jupiter.api.Test
    void treatsMissingPayloadAndHeaderAsAnEmptyJsonItem() {
        ChunkRejection rejection = ChunkFixturesTest.rejected(
                new ChunkProcessor(ChunkProcessor.DEFAULT_MAX_CHUNK_BYTES).process(null, null));
        assertEquals(INVALID_JSON, rejection.reason());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void givesRelaysOutcome(Case c) {
        long limit = c.name().equals("chunkOverTheLimitIsExceedSizeLimit")
                || c.name().equals("normalisationRuleWinsOverSizeLimit") ? 200 : ChunkProcessor.DEFAULT_MAX_CHUNK_BYTES;
        ChunkOutcome outcome = new ChunkProcessor(limit).process(c.payload(), c.header());
        if (c.reason() == null) {
            ChunkFixturesTest.accepted(outcome);
            return;
        }
        ChunkRejection rejection = ChunkFixturesTest.rejected(outcome);
        assertEquals(c.reason(), rejection.reason(), rejection::detail);
        assertTrue(rejection.detail().contains(c.detail()),
                () -> "detail \"" + rejection.detail() + "\" should name " + c.detail());
    }
}
