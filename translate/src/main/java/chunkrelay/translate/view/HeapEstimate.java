package chunkrelay.translate.view;

import java.util.List;
import java.util.Map;

/**
 * What a {@link MergedProfile} holds on the heap, estimated from its tables as a 64-bit HotSpot JVM with compressed
 * references lays them out (12-byte object headers, 4-byte references, objects aligned to 8 bytes, Latin-1 strings
 * one byte a character): each record, list, array and string it references, once per reference (strings shared
 * between profiles count in each). The memory budget of the open minutes counts this, so it follows the layout: a
 * profile split per step costs its whole groups plus a few primitive columns per (group, step) entry.
 */
final class HeapEstimate {
    static final long OBJECT = 16;
    static final long REFERENCE = 4;
    private static final long HEADER = 12;
    private static final long ARRAY_HEADER = 16;
    /** An ArrayList and its array, without its elements. */
    private static final long LIST = 24;
    /** A TreeMap's entry (key, value, three links, colour). */
    private static final long TREE_ENTRY = 40;
    private static final long BOXED_LONG = 16;
    /** A {@link MergedProfile.SampleGroup}: three ints, a reference and four longs. */
    private static final long SAMPLE_GROUP = aligned(HEADER + 3 * 4 + REFERENCE + 4 * 8);

    private HeapEstimate() {
    }

    static long of(MergedProfile profile) {
        long bytes = aligned(HEADER + 14 * REFERENCE + 4 * 8 + 1);
        bytes += list(profile.functions);
        for (MergedProfile.Function function : profile.functions) {
            bytes += aligned(HEADER + 3 * REFERENCE) + text(function.name()) + text(function.systemName())
                    + text(function.file());
        }
        bytes += list(profile.locations);
        for (MergedProfile.Location location : profile.locations) {
            int lines = location.lines().size();
            // List.copyOf: a two-slot list for up to two lines, else a list over an array
            long linesList = lines <= 2 ? aligned(HEADER + 2 * REFERENCE) : OBJECT + array(REFERENCE, lines);
            bytes += aligned(HEADER + 8 + REFERENCE) + linesList + lines * aligned(HEADER + 4 + 8);
        }
        bytes += list(profile.stacks);
        for (int[] stack : profile.stacks) {
            bytes += array(4, stack.length);
        }
        bytes += list(profile.threads);
        for (MergedProfile.Thread thread : profile.threads) {
            bytes += aligned(HEADER + 4 * REFERENCE) + text(thread.profilerId()) + text(thread.threadId())
                    + text(thread.name());
            if (thread.chunk() != null) {
                bytes += chunk(thread.chunk()) - (thread.chunk().profilerId() == thread.profilerId()
                        ? text(thread.profilerId()) : 0);
            }
        }
        bytes += list(profile.links);
        for (MergedProfile.Link link : profile.links) {
            bytes += aligned(HEADER + 2 * REFERENCE) + text(link.traceId()) + text(link.spanId());
        }
        bytes += list(profile.samples) + profile.samples.size() * SAMPLE_GROUP;
        bytes += list(profile.stepCounts);
        for (long[] steps : profile.stepCounts) {
            bytes += array(8, steps.length);
        }
        bytes += OBJECT + 4 * REFERENCE;
        for (ChunkAttributes chunk : profile.chunkCounts.keySet()) {
            bytes += TREE_ENTRY + chunk(chunk) + BOXED_LONG;
        }
        bytes += OBJECT + 4 * REFERENCE;
        for (Map.Entry<ChunkAttributes, long[]> chunk : profile.chunkStepCounts.entrySet()) {
            bytes += TREE_ENTRY + chunk(chunk.getKey()) + array(8, chunk.getValue().length);
        }
        if (profile.steps != null) {
            bytes += profile.steps.heapBytes();
        }
        return bytes;
    }

    /** An array of {@code length} elements of {@code elementBytes} each. */
    static long array(long elementBytes, int length) {
        return aligned(ARRAY_HEADER + elementBytes * length);
    }

    private static long list(List<?> list) {
        return LIST + array(REFERENCE, list.size());
    }

    private static long chunk(ChunkAttributes chunk) {
        return aligned(HEADER + 4 * REFERENCE) + text(chunk.profilerId()) + text(chunk.platform())
                + text(chunk.release()) + text(chunk.environment());
    }

    /** A string: its object and its bytes (two a character when it is not Latin-1). */
    private static long text(String text) {
        if (text == null) {
            return 0;
        }
        boolean latin1 = true;
        for (int i = 0; i < text.length() && latin1; i++) {
            latin1 = text.charAt(i) < 256;
        }
        return aligned(HEADER + 4 + 1 + 1 + REFERENCE) + array(1, latin1 ? text.length() : 2 * text.length());
    }

    private static long aligned(long bytes) {
        return (bytes + 7) & ~7L;
    }
}
