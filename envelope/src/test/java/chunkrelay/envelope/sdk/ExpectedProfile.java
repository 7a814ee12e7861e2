package chunkrelay.envelope.sdk;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What an SDK run's chunks must show: the chunk platform and client, and the busy functions on the thread that ran
 * them.
 */
public record ExpectedProfile(String sdk, String platform, String clientSdkName, List<String> busyFunctions,
                              BusyThread busyThread) {

    /** The thread that ran the busy work, as a chunk's samples and thread_metadata identify it. */
    public sealed interface BusyThread permits ThreadId, ThreadName {

        /** The sample thread ids in this chunk that denote the busy thread. */
        Set<String> threadIds(JsonNode chunk);

        /** Whether an OTLP sample with these {@code thread.id} and {@code thread.name} (either may be null) is it. */
        boolean isThread(String threadId, String threadName);
    }

    /** A fixed thread id, as Node's main thread {@code "0"}. */
    public record ThreadId(String id) implements BusyThread {

        @Override
        public Set<String> threadIds(JsonNode chunk) {
            return Set.of(id);
        }

        @Override
        public boolean isThread(String threadId, String threadName) {
            return id.equals(threadId);
        }

        @Override
        public String toString() {
            return "thread id \"" + id + "\"";
        }
    }

    /** A thread named in the chunk's thread_metadata, as a Java thread the driver named. */
    public record ThreadName(String name) implements BusyThread {

        @Override
        public Set<String> threadIds(JsonNode chunk) {
            Set<String> ids = new HashSet<>();
            chunk.path("profile").path("thread_metadata").fields().forEachRemaining(entry -> {
                if (name.equals(entry.getValue().path("name").asText())) {
                    ids.add(entry.getKey());
                }
            });
            return ids;
        }

        @Override
        public boolean isThread(String threadId, String threadName) {
            return name.equals(threadName);
        }

        @Override
        public String toString() {
            return "thread named \"" + name + "\"";
        }
    }
}
