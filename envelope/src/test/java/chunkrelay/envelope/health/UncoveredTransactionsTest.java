package chunkrelay.envelope.health;

import chunkrelay.envelope.schedule.BackgroundWork;
import chunkrelay.envelope.testing.DatedChunks;
import chunkrelay.envelope.testing.Envelopes;
import chunkrelay.envelope.testing.RelayClient;
import chunkrelay.envelope.testing.RunningRelay;
import chunkrelay.retry.TestClock;
import chunkrelay.storage.EmbeddedS3Server;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two replicas on one bucket, sent as a load balancer would: one replica receives a service's transactions, the
 * chunks of their sessions go one to each replica. A transaction whose session sent chunks but none spanning any
 * moment of it counts in {@code transactionsUncovered}, once its session's chunks have had the silence margin to
 * come and be shared, whichever replica received them; one naming a session that sent none counts as silent and only
 * there. The expected counts are the test's own, from the times in the JSON it sent.
 */
class UncoveredTransactionsTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String ON_OTHER_REPLICA = "0000000000000000000000000000aaaa";
    private static final String ON_THIS_REPLICA = "0000000000000000000000000000bbbb";
    private static final String SILENT = "0000000000000000000000000000cccc";

    /** A transaction the test sent: its session and time, in seconds since the epoch. */
    private record Sent(String profilerId, double start, double end) {
    }

    /** A chunk the test sent: its session and the time from its first sample to its last. */
    private record SentChunk(String profilerId, double first, double last) {
    }

    @Test
    void transactionsNoChunkOfTheirSessionSpansAreCountedOnceTheSessionsChunksHadTheMarginToCome()
            throws Exception {
        Map<String, Object> config = Map.of("test.clock", "manual", "relay.links.window", "30s");
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             RunningRelay receiving = RunningRelay.start(s3, config);
             RunningRelay other = RunningRelay.start(s3, config)) {
            receiving.bean(BackgroundWork.class).hold();
            other.bean(BackgroundWork.class).hold();
            Instant now = receiving.clock().instant();
            Instant firstSample = now.minusSeconds(40);

            byte[] otherChunk = DatedChunks.envelope("node", firstSample, 1, ON_OTHER_REPLICA);
            byte[] thisChunk = DatedChunks.envelope("node", firstSample, 2, ON_THIS_REPLICA);
            List<SentChunk> chunks = List.of(span(otherChunk), span(thisChunk));
            double first = chunks.get(0).first();
            double last = chunks.get(0).last();
            assertTrue(last - first > 1, "the recorded chunk spans more than a second: " + chunks);

            List<Sent> transactions = new ArrayList<>();
            for (String id : List.of(ON_OTHER_REPLICA, ON_THIS_REPLICA)) {
                transactions.add(new Sent(id, (first + last) / 2, (first + last) / 2 + 0.1)); // inside
                transactions.add(new Sent(id, first - 1, first + 0.01)); // over the first sample
                transactions.add(new Sent(id, first - 5, first - 2)); // before the chunk
                transactions.add(new Sent(id, last + 0.5, last + 1.5)); // after it
            }
            transactions.add(new Sent(SILENT, first, last));
            transactions.add(new Sent(SILENT, first - 5, first - 2));
            // the transactions come first, as an SDK sends a transaction when it ends and a chunk every minute
            for (int i = 0; i < transactions.size(); i++) {
                assertEquals(200, receiving.client().post(Envelopes.PATH, transactionEnvelope(transactions.get(i),
                        i), "X-Sentry-Auth", Envelopes.AUTH).status());
            }
            assertEquals(200, other.client().post(Envelopes.PATH, otherChunk, "X-Sentry-Auth", Envelopes.AUTH)
                    .status());
            assertEquals(200, receiving.client().post(Envelopes.PATH, thisChunk, "X-Sentry-Auth", Envelopes.AUTH)
                    .status());

            long expectedUncovered = 0;
            long expectedSilent = 0;
            for (Sent transaction : transactions) {
                List<SentChunk> ofSession = chunks.stream()
                        .filter(c -> c.profilerId().equals(transaction.profilerId())).toList();
                if (ofSession.isEmpty()) {
                    expectedSilent++;
                } else if (ofSession.stream().noneMatch(c -> c.first() <= transaction.end()
                        && c.last() >= transaction.start())) {
                    expectedUncovered++;
                }
            }
            assertEquals(4, expectedUncovered, "before and after each session's chunk");

            HealthCounts counts = receiving.bean(HealthCounts.class);
            HealthCounts otherCounts = other.bean(HealthCounts.class);
            otherCounts.share();
            counts.share();
            counts.tellCoverage();
            String range = "from=" + (now.getEpochSecond() - 120) + "&to=" + (now.getEpochSecond() + 120);
            assertEquals(0, row(receiving, range).path("transactionsUncovered").asLong(),
                    "nothing is told before the session's chunks had the margin to come");

            Duration due = Duration.ofMinutes(1).plus(HealthQuestions.silenceMargin(
                    receiving.bean(chunkrelay.envelope.links.LinksConfig.class))).plusSeconds(10);
            receiving.clock().advance(due);
            other.clock().advance(due);
            otherCounts.share();
            counts.share();
            counts.tellCoverage();
            JsonNode row = row(receiving, range);
            assertEquals(transactions.size(), row.path("transactions").asLong(), row.toString());
            assertEquals(expectedUncovered, row.path("transactionsUncovered").asLong(), row.toString());
            assertEquals(expectedSilent, row.path("transactionsSilent").asLong(), row.toString());
            assertEquals(1, row.path("silentSessions").asLong(), row.toString());

            counts.tellCoverage();
            assertEquals(expectedUncovered, row(receiving, range).path("transactionsUncovered").asLong(),
                    "each transaction is told once");
            String csv = receiving.client().get("/api/v1/projects/1/health?format=csv&" + range).raw();
            List<String> header = List.of(csv.split("\r\n")[0].split(","));
            List<String> values = Stream.of(csv.split("\r\n")).filter(line -> line.startsWith("sentry.python,"))
                    .findFirst().map(line -> List.of(line.split(","))).orElseThrow();
            assertEquals(String.valueOf(expectedUncovered), values.get(header.indexOf("transactions_uncovered")),
                    csv);
        }
    }

    private static JsonNode row(RunningRelay relay, String range) {
        RelayClient.Answer answer = relay.client().get("/api/v1/projects/1/health?" + range);
        assertEquals(200, answer.status(), answer.raw());
        for (JsonNode sdk : answer.body().path("sdks")) {
            if (sdk.path("sdk").asText().equals("sentry.python")) {
                return sdk;
            }
        }
        throw new AssertionError("no sentry.python row: " + answer.raw());
    }

    /** The chunk's session and the time its samples span, as the JSON sent has them. */
    private static SentChunk span(byte[] envelope) throws Exception {
        String[] lines = new String(envelope, StandardCharsets.UTF_8).split("\n");
        JsonNode payload = JSON.readTree(lines[2]);
        double first = Double.MAX_VALUE;
        double last = -Double.MAX_VALUE;
        for (JsonNode sample : payload.path("profile").path("samples")) {
            first = Math.min(first, sample.path("timestamp").asDouble());
            last = Math.max(last, sample.path("timestamp").asDouble());
        }
        return new SentChunk(payload.path("profiler_id").asText(), first, last);
    }

    private static byte[] transactionEnvelope(Sent transaction, int number) throws Exception {
        ObjectNode event = JSON.createObjectNode();
        event.put("type", "transaction").put("platform", "python").put("start_timestamp", transaction.start())
                .put("timestamp", transaction.end()).put("transaction", "work");
        event.putObject("sdk").put("name", "sentry.python").put("version", "2.75.0");
        ObjectNode contexts = event.putObject("contexts");
        contexts.putObject("trace").put("trace_id", String.format("%032x", 0xabc000L + number))
                .put("span_id", String.format("%016x", 0xdef000L + number));
        contexts.putObject("profile").put("profiler_id", transaction.profilerId());
        event.putArray("spans");
        byte[] body = JSON.writeValueAsBytes(event);
        Map<String, Object> item = new HashMap<>();
        item.put("type", "transaction");
        item.put("length", body.length);
        return Envelopes.withItem("{\"event_id\":\"" + String.format("%032x", 0xe0000L + number) + "\"}",
                JSON.writeValueAsString(item), body);
    }
}
