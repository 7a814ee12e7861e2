package chunkrelay.translate;

import chunkrelay.chunk.ProfileChunk;
import chunkrelay.chunk.ThreadMetadata;
import io.opentelemetry.proto.common.v1.AnyValue;

import java.util.Arrays;

import static chunkrelay.translate.OtlpAttributes.SENTRY_THREAD_PRIORITY;
import static chunkrelay.translate.OtlpAttributes.THREAD_ID;
import static chunkrelay.translate.OtlpAttributes.THREAD_NAME;

/**
 * The sample attributes of a chunk's threads: {@code thread.id}, {@code thread.name} and
 * {@code sentry.thread.priority}, each thread's added to the dictionary the first time a sample reaches it.
 * Public for {@link #threadIdValue}, which the views spell {@code thread.id} with.
 */
public final class ThreadAttributes {
    private final ProfileChunk chunk;
    private final ProfilesDictionaryBuilder dictionary;
    /** Chunk thread index to the sample attribute indices; null until first reached. */
    private final int[][] attributesOfThread;

    ThreadAttributes(ProfileChunk chunk, ProfilesDictionaryBuilder dictionary) {
        this.chunk = chunk;
        this.dictionary = dictionary;
        this.attributesOfThread = new int[chunk.threadCount()][];
    }

    /** The attribute indices of the samples of the chunk's thread {@code threadIndex}. */
    int[] of(int threadIndex) {
        int[] known = attributesOfThread[threadIndex];
        if (known != null) {
            return known;
        }
        String threadId = chunk.threadId(threadIndex);
        ThreadMetadata metadata = chunk.threadMetadata().get(threadId);
        int[] attributes = new int[3];
        int count = 0;
        attributes[count++] = dictionary.attribute(THREAD_ID, threadIdValue(threadId), null);
        if (metadata != null && metadata.name() != null) {
            attributes[count++] = dictionary.attribute(THREAD_NAME, metadata.name());
        }
        if (metadata != null && metadata.priority() != null) {
            attributes[count++] = dictionary.attribute(SENTRY_THREAD_PRIORITY, metadata.priority());
        }
        return attributesOfThread[threadIndex] = Arrays.copyOf(attributes, count);
    }

    /** {@code thread.id} is an int in the conventions; ids that are not plain decimal numbers stay strings. */
    public static AnyValue threadIdValue(String threadId) {
        if (isCanonicalDecimal(threadId)) {
            return AnyValue.newBuilder().setIntValue(Long.parseLong(threadId)).build();
        }
        return AnyValue.newBuilder().setStringValue(threadId).build();
    }

    /** Digits with an optional minus, no leading zero, within a long: the form that survives a round trip. */
    private static boolean isCanonicalDecimal(String text) {
        int start = text.startsWith("-") ? 1 : 0;
        int digits = text.length() - start;
        if (digits == 0 || digits > 19 || (text.charAt(start) == '0' && (digits > 1 || start == 1))) {
            return false;
        }
        for (int i = start; i < text.length(); i++) {
            if (text.charAt(i) < '0' || text.charAt(i) > '9') {
                return false;
            }
        }
        if (digits < 19) {
            return true;
        }
        try {
            Long.parseLong(text);
            return true;
        } catch (NumberFormatException tooLarge) {
            return false;
        }
    }
}
