package chunkrelay.chunk.perfetto;

import chunkrelay.chunk.DebugImage;
import chunkrelay.chunk.Frame;
import chunkrelay.chunk.primitive.IndexedSet;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The frames, stacks and debug images of a converted trace, each deduplicated, with Relay's rules
 * ({@code relay_profiling::perfetto::convert::build}):
 * <ul>
 *   <li>a frame whose mapping path is a JVM one ({@link #isJavaMapping}) is a {@code java} frame: its interned name
 *       {@code com.example.Class.method} split at the last dot into module (the class) and function (the method),
 *       no address;</li>
 *   <li>any other frame is {@code native}: function as interned, {@code instruction_addr} = {@code rel_pc} + the
 *       mapping's start (none when that overflows or there is no {@code rel_pc});</li>
 *   <li>frames are the same when function, module, mapping path and address are;</li>
 *   <li>a native mapping with a non-empty build id is a {@code symbolic} debug image (code file = path, debug id
 *       from the build id, address and size from start and end, vmaddr from the load bias), once per path and
 *       start.</li>
 * </ul>
 */
final class PerfettoFrames {
    private static final List<String> JVM_EXTENSIONS = List.of(".oat", ".odex", ".vdex", ".jar", ".dex");
    private static final int FRAME_BYTES = 96;
    private static final int STACK_BYTES = 48;

    private record FrameKey(String function, String module, String path, Long address) {
    }

    private record ImageKey(String codeFile, Long imageAddr) {
    }

    private final MemoryBudget budget;
    /** The frames by index, beside their keys. */
    private final List<Frame> frames = new ArrayList<>();
    private final IndexedSet<FrameKey> frameKeys = IndexedSet.byValue();
    /** The stacks, leaf first, by id. */
    private final IndexedSet<int[]> stacks = IndexedSet.byContents();
    private final List<DebugImage> images = new ArrayList<>();
    private final Set<ImageKey> imageKeys = new HashSet<>();

    PerfettoFrames(MemoryBudget budget) {
        this.budget = budget;
    }

    /** Relay's test for a JVM mapping: ART's compiled, verified and dex files, JARs and the JIT code cache. */
    static boolean isJavaMapping(String path) {
        if (path.contains("dalvik-jit-code-cache")) {
            return true;
        }
        for (String extension : JVM_EXTENSIONS) {
            if (path.endsWith(extension)) {
                return true;
            }
        }
        return false;
    }

    /** The index of the frame an interned frame resolves to, added when new. */
    int frame(String functionName, String mappingPath, Long relPc, SequenceState.InternedMapping mapping)
            throws PerfettoTraceException {
        boolean java = mappingPath != null && isJavaMapping(mappingPath);
        String function = functionName;
        String module = null;
        Long address = null;
        if (java) {
            int dot = functionName == null ? -1 : functionName.lastIndexOf('.');
            if (dot >= 0) {
                module = functionName.substring(0, dot);
                function = functionName.substring(dot + 1);
            }
        } else if (relPc != null) {
            long start = mapping == null || mapping.start() == null ? 0 : mapping.start();
            long sum = relPc + start;
            // rel_pc + start is an unsigned 64-bit sum; one that wraps has no address, as in Relay
            address = Long.compareUnsigned(sum, relPc) < 0 ? null : sum;
        }
        int index = frameKeys.indexOf(new FrameKey(function, module, mappingPath, address));
        if (index < frames.size()) {
            return index;
        }
        // a new key: past a limit the conversion ends with the exception, so the key added without its frame is
        // never read
        if (index >= PerfettoLimits.MAX_UNIQUE_FRAMES) {
            throw new PerfettoTraceException(PerfettoTraceException.Kind.TOO_LARGE,
                    "the trace has more than " + PerfettoLimits.MAX_UNIQUE_FRAMES + " distinct frames");
        }
        budget.add(FRAME_BYTES + length(function) + length(module) + length(mappingPath));
        frames.add(new Frame(function, module, null, null, null, null, null, address, java ? "java" : "native"));
        return index;
    }

    /** The id of a stack (leaf first), added when new; the array is kept, so the caller must not change it after. */
    int stack(int[] leafFirst) throws PerfettoTraceException {
        int known = stacks.size();
        int id = stacks.indexOf(leafFirst);
        if (id == known) {
            budget.add(STACK_BYTES + 8L * leafFirst.length);
        }
        return id;
    }

    /** Records the debug image of a native mapping with a build id, once per path and start. */
    void image(String codeFile, SequenceState.InternedMapping mapping, byte[] buildId) throws PerfettoTraceException {
        if (isJavaMapping(codeFile)) {
            return;
        }
        ImageKey key = new ImageKey(codeFile, mapping.start());
        if (imageKeys.contains(key) || buildId == null || buildId.length == 0) {
            return;
        }
        long start = mapping.start() == null ? 0 : mapping.start();
        long end = mapping.end() == null ? 0 : mapping.end();
        long size = Long.compareUnsigned(end, start) > 0 ? end - start : 0;
        budget.add(FRAME_BYTES + codeFile.length());
        imageKeys.add(key);
        images.add(new DebugImage("symbolic", mapping.start(), size, mapping.loadBias(), codeFile,
                debugId(buildId), null, null, null));
    }

    /**
     * An ELF build id as a Sentry debug id: its first 16 bytes (zero-padded) read as a little-endian UUID, so the
     * first three groups are byte-swapped.
     */
    static String debugId(byte[] buildId) {
        byte[] b = Arrays.copyOf(buildId, 16);
        int[] order = {3, 2, 1, 0, -1, 5, 4, -1, 7, 6, -1, 8, 9, -1, 10, 11, 12, 13, 14, 15};
        StringBuilder id = new StringBuilder(36);
        for (int i : order) {
            if (i < 0) {
                id.append('-');
            } else {
                id.append(Character.forDigit((b[i] >> 4) & 0xF, 16)).append(Character.forDigit(b[i] & 0xF, 16));
            }
        }
        return id.toString();
    }

    private static int length(String text) {
        return text == null ? 0 : 2 * text.length();
    }

    List<Frame> frames() {
        return frames;
    }

    /** Where each stack's frames start in {@link #stackFrames()}, and after the last, where they end. */
    int[] stackOffsets() {
        int[] offsets = new int[stacks.size() + 1];
        for (int id = 0; id < stacks.size(); id++) {
            offsets[id + 1] = offsets[id] + stacks.get(id).length;
        }
        return offsets;
    }

    /** The frames of every stack, one after the other in stack id order. */
    int[] stackFrames() {
        int[] offsets = stackOffsets();
        int[] flat = new int[offsets[stacks.size()]];
        for (int id = 0; id < stacks.size(); id++) {
            System.arraycopy(stacks.get(id), 0, flat, offsets[id], offsets[id + 1] - offsets[id]);
        }
        return flat;
    }

    List<DebugImage> images() {
        return images;
    }
}
