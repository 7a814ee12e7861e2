package chunkrelay.chunk.spans;

/**
 * Thread ids as chunks and spans compare them: SDKs send decimal strings, the OpenTelemetry bridge of sentry-java
 * sends numbers, so decimal ids are compared in their canonical form (no sign for zero, no leading zeros) and any
 * other id as the string it is.
 */
public final class ThreadIds {
    private ThreadIds() {
    }

    /** The canonical form of a thread id; null stays null. */
    public static String canonical(String threadId) {
        if (threadId == null || threadId.isEmpty()) {
            return null;
        }
        int start = threadId.charAt(0) == '-' ? 1 : 0;
        if (start == threadId.length() || threadId.length() - start > 19) {
            return threadId;
        }
        for (int i = start; i < threadId.length(); i++) {
            char c = threadId.charAt(i);
            if (c < '0' || c > '9') {
                return threadId;
            }
        }
        try {
            return Long.toString(Long.parseLong(threadId));
        } catch (NumberFormatException tooLarge) {
            return threadId;
        }
    }
}
