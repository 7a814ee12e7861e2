package chunkrelay.translate.export;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import chunkrelay.retry.Sleeper;
import chunkrelay.translate.export.TestCollector.Received;
import chunkrelay.translate.export.TestCollector.Reply;
import com.google.protobuf.ByteString;
import com.google.protobuf.UnknownFieldSet;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesPartialSuccess;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceResponse;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class OtlpHttpExporterTest {
    private final SyntheticProfiles profiles = new SyntheticProfiles(8, 12, 3, 5);
    private final ExportProfilesServiceRequest request = profiles.request(50);
    private final byte[] body = request.toByteArray();
    private final ExportCounters counters = new ExportCounters();
    private TestCollector collector;

    @BeforeEach
    void startCollector() throws IOException {
        collector = TestCollector.start();
    }

    @AfterEach
    void stopCollector() {
        collector.close();
    }

    private OtlpExportSettings.Builder fastRetries(URI endpoint) {
        return OtlpExportSettings.builder(endpoint)
                .compression(Compression.NONE)
                .initialBackoff(Duration.ofMillis(10))
                .maxBackoff(Duration.ofMillis(50));
    }

    private OtlpHttpExporter exporter(OtlpExportSettings settings) {
        return new OtlpHttpExporter(settings, counters, Clock.systemUTC(), Sleeper.THREAD_SLEEP,
                ForkJoinPool.commonPool());
    }

    @Test
    void deliversTheRequestByteEqualAsProtobufToTheProfilesPath() throws Exception {
        DeliveryResult result = exporter(fastRetries(collector.endpoint()).build()).export(body);

        assertTrue(result.delivered());
        assertEquals(1, result.attempts());
        assertEquals(200, result.status());
        assertFalse(result.partialSuccess());
        Received received = collector.received().get(0);
        assertEquals(1, collector.received().size());
        assertEquals("/v1development/profiles", received.path());
        assertEquals("application/x-protobuf", received.headers().getFirst("Content-Type"));
        assertNull(received.headers().getFirst("Content-Encoding"));
        assertArrayEquals(body, received.wireBody());
        assertEquals(request, received.request());
        assertEquals(1, counters.attempts());
        assertEquals(1, counters.deliveries());
        assertEquals(0, counters.retries());
        assertEquals(0, counters.finalFailures());
        assertEquals(1, counters.answers(AnswerOutcome.DELIVERED, "ok"));
    }

    @Test
    void gzipsTheBodyWhenCompressionIsGzip() throws Exception {
        OtlpExportSettings settings = fastRetries(collector.endpoint()).compression(Compression.GZIP).build();

        assertTrue(exporter(settings).export(body).delivered());

        Received received = collector.received().get(0);
        assertEquals("gzip", received.headers().getFirst("Content-Encoding"));
        assertTrue(received.wireBody().length < body.length, "compressed on the wire");
        assertArrayEquals(body, received.body());
    }

    @Test
    void sendsTheConfiguredHeaders() throws Exception {
        OtlpExportSettings settings = fastRetries(collector.endpoint())
                .headers(Map.of("X-Scope-OrgID", "tenant-7", "Authorization", "Bearer s3cret")).build();

        exporter(settings).export(body);

        Received received = collector.received().get(0);
        assertEquals("tenant-7", received.headers().getFirst("X-Scope-OrgID"));
        assertEquals("Bearer s3cret", received.headers().getFirst("Authorization"));
    }

    @Test
    void appendsTheProfilesPathToAnEndpointPathWithATrailingSlash() throws Exception {
        URI endpoint = URI.create(collector.endpoint() + "/otlp/");

        assertTrue(exporter(fastRetries(endpoint).build()).export(body).delivered());

        assertEquals("/otlp/v1development/profiles", collector.received().get(0).path());
    }

    @Test
    void retries503TwiceThenDeliversOnce() throws Exception {
        collector.then(Reply.status(503), Reply.status(503));

        DeliveryResult result = exporter(fastRetries(collector.endpoint()).build()).export(body);

        assertTrue(result.delivered());
        assertEquals(3, result.attempts());
        assertEquals(3, collector.received().size());
        collector.received().forEach(received -> assertArrayEquals(body, received.wireBody()));
        assertEquals(3, counters.attempts());
        assertEquals(2, counters.retries());
        assertEquals(1, counters.deliveries());
        assertEquals(0, counters.finalFailures());
    }

    @Test
    void retries429And502And504() throws Exception {
        collector.then(Reply.status(429), Reply.status(502), Reply.status(504));

        DeliveryResult result = exporter(fastRetries(collector.endpoint()).build()).export(body);

        assertTrue(result.delivered());
        assertEquals(4, result.attempts());
        assertEquals(3, counters.retries());
    }

    @Test
    void waitsAtLeastRetryAfterSecondsBeforeTheNextAttempt() throws Exception {
        collector.then(Reply.status(429).header("Retry-After", "2"));
        List<Duration> waits = Collections.synchronizedList(new ArrayList<>());
        OtlpHttpExporter exporter = new OtlpHttpExporter(fastRetries(collector.endpoint()).build(), counters,
                Clock.systemUTC(), waits::add, ForkJoinPool.commonPool());

        DeliveryResult result = exporter.export(body);

        assertTrue(result.delivered());
        assertEquals(2, collector.received().size());
        assertEquals(1, waits.size(), "one wait before the second attempt: " + waits);
        assertTrue(waits.get(0).compareTo(Duration.ofSeconds(2)) >= 0, "waited only " + waits.get(0));
    }

    @Test
    void honoursRetryAfterGivenAsAnHttpDate() throws Exception {
        Instant now = Instant.parse("2026-11-22T03:00:00Z");
        String inSevenSeconds = DateTimeFormatter.RFC_1123_DATE_TIME.format(now.plusSeconds(7).atZone(ZoneOffset.UTC));
        collector.then(Reply.status(503).header("Retry-After", inSevenSeconds));
        List<Duration> waits = Collections.synchronizedList(new ArrayList<>());
        OtlpHttpExporter exporter = new OtlpHttpExporter(fastRetries(collector.endpoint()).build(), counters,
                Clock.fixed(now, ZoneOffset.UTC), waits::add, ForkJoinPool.commonPool());

        DeliveryResult result = exporter.export(body);

        assertTrue(result.delivered());
        assertEquals(List.of(Duration.ofSeconds(7)), waits);
        assertEquals(2, collector.received().size());
    }

    @Test
    void givesUpWithoutWaitingWhenRetryAfterExceedsTheRetryBudget() throws Exception {
        collector.then(Reply.status(503).header("Retry-After", "3600"));
        List<Duration> waits = Collections.synchronizedList(new ArrayList<>());
        OtlpHttpExporter exporter = new OtlpHttpExporter(fastRetries(collector.endpoint()).build(), counters,
                Clock.systemUTC(), waits::add, ForkJoinPool.commonPool());

        DeliveryResult result = exporter.export(body);

        assertFalse(result.delivered());
        assertEquals(503, result.status());
        assertEquals(1, result.attempts());
        assertTrue(result.reason().contains("retry budget"), result.reason());
        assertFalse(result.refused(), "a retryable answer is left for replay, not refused");
        assertEquals(List.of(), waits);
        assertEquals(Map.of(503, 1L), counters.finalFailuresByStatus());
        assertEquals(1, counters.answers(AnswerOutcome.RETRIED, "503"));
    }

    @ParameterizedTest
    @ValueSource(ints = {400, 401, 403, 404, 413, 500, 501, 418})
    void refusesForGoodOnOtherClientAndServerErrorsWithoutRetrying(int status) throws Exception {
        collector.then(Reply.status(status));

        DeliveryResult result = exporter(fastRetries(collector.endpoint()).build()).export(body);

        assertFalse(result.delivered());
        assertTrue(result.refused());
        assertEquals(1, counters.answers(AnswerOutcome.REFUSED, status == 418 ? "other" : Integer.toString(status)));
        assertEquals(0, AnswerOutcome.RETRIED.reasons().stream()
                .mapToLong(reason -> counters.answers(AnswerOutcome.RETRIED, reason)).sum());
        assertEquals(status, result.status());
        assertEquals(1, result.attempts());
        assertEquals(1, collector.received().size());
        assertEquals(Map.of(status, 1L), counters.finalFailuresByStatus());
        assertEquals(0, counters.retries());
        assertEquals(0, counters.deliveries());
    }

    @Test
    void reportsTheReceiversStatusMessageOn400() throws Exception {
        byte[] status = UnknownFieldSet.newBuilder()
                .addField(1, UnknownFieldSet.Field.newBuilder().addVarint(3).build())
                .addField(2, UnknownFieldSet.Field.newBuilder()
                        .addLengthDelimited(ByteString.copyFromUtf8("stack_index 99 out of range")).build())
                .build().toByteArray();
        collector.then(Reply.status(400).body("application/x-protobuf", status));

        DeliveryResult result = exporter(fastRetries(collector.endpoint()).build()).export(body);

        assertEquals("HTTP 400: stack_index 99 out of range", result.reason());
    }

    @Test
    void retriesRefusedConnectionsUntilTheTargetComesUp() throws Exception {
        int port = freePort();
        OtlpExportSettings settings = fastRetries(URI.create("http://127.0.0.1:" + port))
                .maxAttempts(100).maxElapsed(Duration.ofSeconds(20)).maxBackoff(Duration.ofMillis(100)).build();
        AtomicReference<TestCollector> late = new AtomicReference<>();
        Thread starter = new Thread(() -> {
            try {
                Thread.sleep(400);
                late.set(TestCollector.startOn(port));
            } catch (IOException | InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        starter.start();
        try {
            DeliveryResult result = exporter(settings).export(body);
            starter.join();

            assertTrue(result.delivered(), result.reason());
            assertTrue(result.attempts() > 1, "attempts: " + result.attempts());
            assertEquals(1, late.get().received().size());
            assertArrayEquals(body, late.get().received().get(0).wireBody());
            assertEquals(result.attempts() - 1, counters.retries());
        } finally {
            starter.join();
            if (late.get() != null) {
                late.get().close();
            }
        }
    }

    @Test
    void givesUpOnRefusedConnectionsAfterMaxAttempts() throws Exception {
        OtlpExportSettings settings = fastRetries(URI.create("http://127.0.0.1:" + freePort()))
                .maxAttempts(3).build();

        DeliveryResult result = exporter(settings).export(body);

        assertFalse(result.delivered());
        assertEquals(DeliveryResult.NO_STATUS, result.status());
        assertEquals(3, result.attempts());
        assertTrue(result.reason().contains("ConnectException"), result.reason());
        assertFalse(result.refused());
        assertEquals(Map.of(DeliveryResult.NO_STATUS, 1L), counters.finalFailuresByStatus());
        assertEquals(2, counters.retries());
        assertEquals(3, counters.answers(AnswerOutcome.RETRIED, "no_response"));
    }

    @Test
    void retriesAnAttemptThatTimesOut() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        collector.then(Reply.status(200).heldUntil(release));
        try {
            OtlpExportSettings settings = fastRetries(collector.endpoint()).timeout(Duration.ofMillis(300)).build();

            DeliveryResult result = exporter(settings).export(body);

            assertTrue(result.delivered());
            assertEquals(2, result.attempts());
            assertEquals(2, collector.received().size());
        } finally {
            release.countDown();
        }
    }

    @Test
    void retriesAnAttemptWhoseResponseBodyStalls() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        collector.then(Reply.stalledBodyUntil(release));
        try {
            OtlpExportSettings settings = fastRetries(collector.endpoint()).timeout(Duration.ofMillis(200)).build();

            DeliveryResult result = exporter(settings).export(body);

            assertTrue(result.delivered());
            assertEquals(2, result.attempts());
            assertEquals(1, counters.retries());
        } finally {
            release.countDown();
        }
    }

    @Test
    void countsAPartialSuccessWithoutRetrying() throws Exception {
        collector.then(Reply.ok(ExportProfilesServiceResponse.newBuilder()
                .setPartialSuccess(ExportProfilesPartialSuccess.newBuilder()
                        .setRejectedProfiles(2).setErrorMessage("2 profiles without samples"))
                .build()));

        DeliveryResult result = exporter(fastRetries(collector.endpoint()).build()).export(body);

        assertTrue(result.delivered());
        assertTrue(result.partialSuccess());
        assertEquals(2, result.rejectedProfiles());
        assertEquals("2 profiles without samples", result.partialSuccessMessage());
        assertEquals(1, result.attempts());
        assertEquals(1, collector.received().size());
        assertEquals(1, counters.partialSuccesses());
        assertEquals(2, counters.rejectedProfiles());
        assertEquals(1, counters.deliveries());
    }

    @Test
    void sendsARequestOverTheConfiguredLimitInValidGzippedParts() throws Exception {
        long limit = body.length / 3;
        OtlpExportSettings settings = fastRetries(collector.endpoint())
                .compression(Compression.GZIP).maxRequestBytes(limit).build();

        DeliveryResult result = exporter(settings).export(body);

        assertTrue(result.delivered(), result.reason());
        List<Received> received = collector.received();
        assertTrue(received.size() >= 3, "parts: " + received.size());
        assertEquals(received.size(), result.parts());
        assertEquals(received.size(), result.attempts());
        int samples = 0;
        for (Received part : received) {
            assertTrue(part.body().length <= limit, part.body().length + " > " + limit);
            DictionaryInvariants.assertValid(part.request());
            samples += part.request().getResourceProfiles(0).getScopeProfiles(0).getProfiles(0).getSamplesCount();
        }
        assertEquals(50, samples);
        assertEquals(1, counters.splitRequests());
        assertEquals(1, counters.deliveries());
    }

    @Test
    void doesNotSendAnOversizedBodyThatIsNotARequest() throws Exception {
        byte[] garbage = new byte[4096];
        java.util.Arrays.fill(garbage, (byte) 0xFF);
        OtlpExportSettings settings = fastRetries(collector.endpoint()).maxRequestBytes(1024).build();

        DeliveryResult result = exporter(settings).export(garbage);

        assertFalse(result.delivered());
        assertEquals(0, result.attempts());
        assertTrue(result.reason().contains("not a valid ExportProfilesServiceRequest"), result.reason());
        assertEquals(0, collector.received().size());
        assertEquals(Map.of(DeliveryResult.NO_STATUS, 1L), counters.finalFailuresByStatus());
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
