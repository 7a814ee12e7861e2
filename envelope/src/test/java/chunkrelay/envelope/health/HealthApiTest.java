package chunkrelay.envelope.health;

import chunkrelay.envelope.testing.PrometheusScrape;
import chunkrelay.envelope.testing.RelayClient;
import chunkrelay.envelope.testing.RunningRelay;
import chunkrelay.storage.EmbeddedS3Server;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code GET /api/v1/projects/{p}/health} of a real relay on a real S3 server after the recorded SDK captures and a
 * set of invalid chunks ({@link HealthSends}): each SDK's row equals the test's own count of what it sent
 * ({@link SentChunks}), reason by reason and rule by rule, and its linked and linkable samples those of its chunks'
 * archived OTLP forms, as JSON and as CSV.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HealthApiTest {
    private EmbeddedS3Server s3;
    private RunningRelay relay;
    private final SentChunks sent = new SentChunks();
    private String range;

    @BeforeAll
    void sendTheCapturesAndTheInvalidChunks() {
        s3 = EmbeddedS3Server.inMemory();
        relay = RunningRelay.start(s3, Map.of());
        Instant start = Instant.now();
        HealthSends.send(HealthSends.all(sent), i -> relay.client());
        range = "from=" + (start.getEpochSecond() - 60) + "&to=" + (Instant.now().getEpochSecond() + 60);
    }

    @AfterAll
    void stop() {
        relay.close();
        s3.close();
    }

    @Test
    void eachSdksRowEqualsTheTestsOwnCountReasonByReasonAndRuleByRule() {
        RelayClient.Answer answer = relay.client().get("/api/v1/projects/1/health?" + range);
        assertEquals(200, answer.status(), answer.raw());
        Map<String, SentChunks.Row> expected = sent.rows();
        assertEquals(expected, SentChunks.rows(answer.body()));
        // what the test sent covers what the answer is to tell apart
        assertTrue(expected.values().stream().anyMatch(r -> !r.samplesDropped().isEmpty()), "a rule dropped samples");
        assertTrue(expected.values().stream().mapToLong(r -> r.rejected().size()).sum() >= 7, "seven reasons");
        assertTrue(expected.size() >= 6, "SDKs by payload, envelope and neither: " + expected.keySet());
        // sessions named by transactions, with chunks and without
        assertTrue(expected.values().stream().anyMatch(r -> r.transactions() > r.transactionsSilent()),
                "a session named that sent chunks");
        assertTrue(expected.values().stream().mapToLong(SentChunks.Row::silentSessions).sum() >= 2, "silent sessions");
    }

    @Test
    void eachSdksLinkedAndLinkableSamplesEqualTheArchivedOtlpForms() throws IOException {
        RelayClient.Answer answer = relay.client().get("/api/v1/projects/1/health?" + range);
        assertEquals(200, answer.status(), answer.raw());
        Map<String, SentChunks.Links> expected = sent.links(relay);
        assertEquals(expected, SentChunks.links(answer.body()));
        // the captures link samples to their spans, and some span covers samples it does not link: linkable counts
        assertTrue(expected.values().stream().mapToLong(SentChunks.Links::linkedSamples).sum() > 0, "linked samples");
        assertTrue(expected.values().stream().anyMatch(l -> l.linkableSamples() > l.linkedSamples()),
                "ambiguous samples: " + expected);
    }

    @Test
    void theMetersCountRefusalsByReasonAndDropsByRuleUnderBoundedSdkTags() {
        PrometheusScrape scrape = PrometheusScrape.of(relay.uri());
        Map<String, Double> reasons = new TreeMap<>();
        Map<String, Double> rules = new TreeMap<>();
        for (SentChunks.Row row : sent.rows().values()) {
            row.rejected().forEach((reason, count) -> reasons.merge(reason, (double) count, Double::sum));
            row.samplesDropped().forEach((rule, count) -> rules.merge(rule, (double) count, Double::sum));
        }
        assertEquals(reasons, scrape.byLabel("relay_sdk_chunks_rejected_total", "reason"));
        assertEquals(rules, scrape.byLabel("relay_sdk_samples_dropped_total", "rule"));
        // an SDK name Sentry does not use is other, a version its major.minor, an unknown platform other
        assertEquals(1, scrape.value("relay_sdk_chunks_rejected_total", "sdk", "other", "sdk_version", "1.0",
                "platform", "other", "reason", "profiling_invalid_json"));
        assertEquals(1, scrape.value("relay_sdk_chunks_rejected_total", "sdk", "other", "sdk_version", "2.13",
                "platform", "python", "reason", "profiling_not_enough_samples"));
        assertEquals(1, scrape.value("relay_sdk_samples_dropped_total", "sdk", "sentry.javascript.node",
                "sdk_version", "11.2", "platform", "node", "rule", "thread_with_fewer_than_two_samples"));
        assertEquals(Set.of("other", "sentry.javascript.node"),
                scrape.byLabel("relay_sdk_chunks_rejected_total", "sdk").keySet());
    }

    @Test
    void aRangeBeforeTheChunksCameHasNoSdk() {
        long start = Long.parseLong(range.substring("from=".length(), range.indexOf('&')));
        RelayClient.Answer answer = relay.client().get("/api/v1/projects/1/health?from=" + (start - 3600) + "&to="
                + (start - 60));
        assertEquals(200, answer.status(), answer.raw());
        assertEquals(0, answer.body().path("sdks").size());
        assertTrue(answer.body().path("sdks").isArray());
    }

    @Test
    void csvHasOneRowPerSdkWithEveryReasonAndRuleAsAColumn() throws IOException {
        RelayClient.Answer csv = relay.client().get("/api/v1/projects/1/health?format=csv&" + range);
        assertEquals(200, csv.status(), csv.raw());
        assertTrue(csv.header("Content-Type").startsWith("text/csv"), csv.header("Content-Type"));
        List<String> lines = csv.raw().lines().toList();
        List<String> columns = Arrays.asList(lines.get(0).split(","));
        assertEquals(List.of("sdk", "version", "platform", "chunks", "samples", "sessions", "sessions_capped",
                "transactions", "silent_sessions", "transactions_silent", "transactions_uncovered", "linked_samples",
                "linkable_samples"),
                columns.subList(0, 13));
        // every reason the relay names, and internal_error, whether or not the range has one
        assertTrue(columns.containsAll(List.of("rejected.internal_error", "rejected.profiling_duration_is_zero",
                "rejected.profiling_invalid_json", "dropped.thread_with_fewer_than_two_samples")), columns.toString());

        Map<String, SentChunks.Row> rows = new TreeMap<>();
        Map<String, SentChunks.Links> links = new TreeMap<>();
        for (String line : lines.subList(1, lines.size())) {
            String[] cells = line.split(",", -1);
            assertEquals(columns.size(), cells.length, line);
            Map<String, Long> rejected = new TreeMap<>();
            Map<String, Long> dropped = new TreeMap<>();
            for (int c = 13; c < cells.length; c++) {
                long count = Long.parseLong(cells[c]);
                String column = columns.get(c);
                if (count > 0 && column.startsWith("rejected.")) {
                    rejected.put(column.substring("rejected.".length()), count);
                } else if (count > 0) {
                    dropped.put(column.substring("dropped.".length()), count);
                }
            }
            rows.put(cells[0] + " " + cells[1] + " " + cells[2], new SentChunks.Row(Long.parseLong(cells[3]),
                    rejected, Long.parseLong(cells[4]), dropped, Long.parseLong(cells[5]), Long.parseLong(cells[7]),
                    Long.parseLong(cells[8]), Long.parseLong(cells[9])));
            if (Long.parseLong(cells[12]) > 0) {
                links.put(cells[0] + " " + cells[1] + " " + cells[2],
                        new SentChunks.Links(Long.parseLong(cells[11]), Long.parseLong(cells[12])));
            }
        }
        assertEquals(sent.rows(), rows);
        assertEquals(sent.links(relay), links);
    }

    @Test
    void badParametersGetTheViews400() {
        RelayClient client = relay.client();
        RelayClient.Answer badTime = client.get("/api/v1/projects/1/health?from=yesterday");
        assertEquals(400, badTime.status());
        assertEquals("from must be an RFC 3339 time (2026-11-22T02:00:00Z) or Unix seconds, got 'yesterday'",
                badTime.detail());
        RelayClient.Answer badFormat = client.get("/api/v1/projects/1/health?format=xml&" + range);
        assertEquals(400, badFormat.status());
        assertEquals("format must be json or csv, got 'xml'", badFormat.detail());
        assertEquals(400, client.get("/api/v1/projects/one/health").status());
        assertEquals(400, client.get("/api/v1/projects/1/health?from=200&to=100").status());
    }

    @Test
    void withAViewsTokenTheHealthAnswerNeedsIt() {
        try (EmbeddedS3Server other = EmbeddedS3Server.inMemory();
             RunningRelay guarded = RunningRelay.start(other, Map.of("relay.views.token", "s3cret-token"))) {
            RelayClient client = guarded.client();
            RelayClient.Answer without = client.get("/api/v1/projects/1/health");
            assertEquals(401, without.status());
            assertEquals("Bearer", without.header("WWW-Authenticate"));
            assertEquals(401, client.get("/api/v1/projects/1/health", "Authorization", "Bearer wrong").status());
            RelayClient.Answer with = client.get("/api/v1/projects/1/health", "Authorization", "Bearer s3cret-token");
            assertEquals(200, with.status(), with.raw());
            assertEquals(new ArrayList<>(), new ArrayList<>(SentChunks.rows(with.body()).keySet()));
        }
    }
}
