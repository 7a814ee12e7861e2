package chunkrelay.translate;

import chunkrelay.chunk.DebugImage;
import chunkrelay.chunk.Frame;
import chunkrelay.chunk.ProfileChunk;
import chunkrelay.chunk.primitive.IndexRemap;
import io.opentelemetry.proto.profiles.v1development.Function;
import io.opentelemetry.proto.profiles.v1development.Line;
import io.opentelemetry.proto.profiles.v1development.Location;
import io.opentelemetry.proto.profiles.v1development.Mapping;
import io.opentelemetry.proto.profiles.v1development.Stack;

import java.util.HashMap;
import java.util.Map;

import static chunkrelay.translate.OtlpAttributes.*;

/**
 * A chunk's stacks, frames and debug images as the dictionary's stack, location, function and mapping tables. Each
 * is translated once, the first time a sample reaches it: what no sample reaches would be an orphan in the tables.
 */
final class StackTables {
    private final ProfileChunk chunk;
    private final ProfilesDictionaryBuilder dictionary;
    private final DebugImageIndex images;
    private final Map<DebugImage, Integer> mappingOfImage = new HashMap<>();
    /** Chunk frame index to location index, mapped when first reached. */
    private final IndexRemap locationOfFrame;
    /** Chunk stack id to stack index, mapped when first reached. */
    private final IndexRemap stackOfStackId;
    /** The location of the frame standing for an empty stack; -1 until a sample needs it. */
    private int emptyStackLocation = -1;

    StackTables(ProfileChunk chunk, ProfilesDictionaryBuilder dictionary) {
        this.chunk = chunk;
        this.dictionary = dictionary;
        this.images = new DebugImageIndex(chunk.debugImages());
        this.locationOfFrame = new IndexRemap(chunk.frames().size());
        this.stackOfStackId = new IndexRemap(chunk.stackCount());
    }

    /** The stack index of the chunk's stack {@code stackId}. */
    int stack(int stackId) {
        int known = stackOfStackId.get(stackId);
        if (known != IndexRemap.UNMAPPED) {
            return known;
        }
        Stack.Builder stack = Stack.newBuilder();
        int depth = chunk.stackDepth(stackId);
        for (int d = 0; d < depth; d++) {
            stack.addLocationIndices(location(chunk.stackFrame(stackId, d)));
        }
        if (depth == 0) {
            // a tick that saw no frame stays (it is time the thread was sampled) under a frame that says so, so that
            // no consumer drops it or draws a nameless bar
            stack.addLocationIndices(emptyStackLocation());
        }
        return stackOfStackId.set(stackId, dictionary.stack(stack.build()));
    }

    private int emptyStackLocation() {
        if (emptyStackLocation < 0) {
            String name = ProfileTypes.emptyStackFrame(ProfileTypes.periodType(chunk.sampledTime()));
            Location.Builder location = Location.newBuilder().addLines(Line.newBuilder().setFunctionIndex(
                    dictionary.function(Function.newBuilder().setNameStrindex(dictionary.string(name)).build())));
            if (chunk.platform() != null) {
                location.addAttributeIndices(dictionary.attribute(PROFILE_FRAME_TYPE,
                        Platforms.frameType(chunk.platform())));
            }
            emptyStackLocation = dictionary.location(location.build());
        }
        return emptyStackLocation;
    }

    private int location(int frameIndex) {
        int known = locationOfFrame.get(frameIndex);
        if (known != IndexRemap.UNMAPPED) {
            return known;
        }
        Frame frame = chunk.frames().get(frameIndex);
        Location.Builder location = Location.newBuilder();
        if (frame.instructionAddr() != null) {
            long address = frame.instructionAddr();
            location.setAddress(address);
            DebugImage image = images.find(address);
            if (image != null) {
                location.setMappingIndex(mappingOfImage.computeIfAbsent(image, this::mapping));
            }
        }
        int function = function(frame);
        // a frame with neither name nor file (an unsymbolicated address) gets no line: an empty
        // Function is invalid, and the address and mapping already say where it is
        if (function != 0) {
            location.addLines(Line.newBuilder()
                    .setFunctionIndex(function)
                    .setLine(frame.lineno() == null ? 0 : Integer.toUnsignedLong(frame.lineno()))
                    .setColumn(frame.colno() == null ? 0 : Integer.toUnsignedLong(frame.colno())));
        }
        String platform = frame.platform() != null ? frame.platform() : chunk.platform();
        if (platform != null) {
            location.addAttributeIndices(dictionary.attribute(PROFILE_FRAME_TYPE, Platforms.frameType(platform)));
        }
        if (frame.inApp() != null) {
            location.addAttributeIndices(dictionary.attribute(SENTRY_FRAME_IN_APP, frame.inApp()));
        }
        if (frame.module() != null) {
            location.addAttributeIndices(dictionary.attribute(SENTRY_FRAME_MODULE, frame.module()));
        }
        if (frame.platform() != null) {
            location.addAttributeIndices(dictionary.attribute(SENTRY_FRAME_PLATFORM, frame.platform()));
        }
        return locationOfFrame.set(frameIndex, dictionary.location(location.build()));
    }

    /**
     * The function of a frame, or 0 when the frame names neither function nor file. Frames of JVM platforms are
     * named {@code package.Class.method} ({@link JvmFrameNames}), with the JNI signature in {@code system_name}
     * when the frame has one (Android ART traces); Python frames {@code module.Class.method}
     * ({@link PythonFrameNames}). A frame with a file but no name gets the name Sentry's own UI shows for it
     * ({@link UnnamedFrames}).
     */
    private int function(Frame frame) {
        String platform = frame.platform() != null ? frame.platform() : chunk.platform();
        boolean jvm = platform != null && JvmFrameNames.isJvm(platform);
        boolean python = platform != null && PythonFrameNames.isPython(platform);
        int name = dictionary.string(jvm ? JvmFrameNames.qualifiedName(frame)
                : python ? PythonFrameNames.qualifiedName(frame) : frame.function());
        int file = dictionary.string(firstNonEmpty(frame.absPath(), frame.filename(), frame.module()));
        if (name == 0 && file == 0) {
            return 0;
        }
        if (name == 0) {
            name = dictionary.string(UnnamedFrames.name(platform));
        }
        Function.Builder function = Function.newBuilder().setNameStrindex(name).setFilenameStrindex(file);
        if (jvm) {
            function.setSystemNameStrindex(dictionary.string(JvmFrameNames.systemName(frame)));
        }
        return dictionary.function(function.build());
    }

    private int mapping(DebugImage image) {
        Mapping.Builder mapping = Mapping.newBuilder()
                .setMemoryStart(image.imageAddr())
                .setMemoryLimit(image.imageAddr() + image.imageSize())
                .setFilenameStrindex(dictionary.string(image.codeFile()));
        addIfPresent(mapping, SENTRY_IMAGE_DEBUG_ID, image.debugId());
        addIfPresent(mapping, SENTRY_IMAGE_CODE_ID, image.codeId());
        addIfPresent(mapping, SENTRY_IMAGE_UUID, image.uuid());
        addIfPresent(mapping, SENTRY_IMAGE_TYPE, image.type());
        addIfPresent(mapping, SENTRY_IMAGE_ARCH, image.arch());
        if (image.imageVmaddr() != null) {
            mapping.addAttributeIndices(dictionary.attribute(SENTRY_IMAGE_VMADDR, image.imageVmaddr()));
        }
        return dictionary.mapping(mapping.build());
    }

    private void addIfPresent(Mapping.Builder mapping, String key, String value) {
        if (value != null && !value.isEmpty()) {
            mapping.addAttributeIndices(dictionary.attribute(key, value));
        }
    }

    private static String firstNonEmpty(String... candidates) {
        for (String candidate : candidates) {
            if (candidate != null && !candidate.isEmpty()) {
                return candidate;
            }
        }
        return null;
    }
}
