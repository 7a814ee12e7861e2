package chunkrelay.translate.export;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import chunkrelay.retry.Sleeper;
import chunkrelay.chunk.testing.Await;
import chunkrelay.translate.export.TestCollector.Reply;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ForwardingQueueTest {
    private static final Duration WAIT = Duration.ofSeconds(5);
    private final SyntheticProfiles profiles = new SyntheticProfiles(8, 12, 3, 5);
    private final ExportCounters counters = new ExportCounters();
    private final RecordingListener listener = new RecordingListener();
    private final CountDownLatch releaseTarget = new CountDownLatch(1);
    private TestCollector collector;

    @BeforeEach
    void startCollector() throws IOException {
        collector = TestCollector.start();
    }

    @AfterEach
    void stopCollector() {
        releaseTarget.countDown();
        collector.close();
    }

    private ForwardingQueue queue(int capacity, int workers, long maxBytes) {
        OtlpExportSettings settings = OtlpExportSettings.builder(collector.endpoint())
                .compression(Compression.NONE)
                .queueCapacity(capacity)
                .workers(workers)
                .queueMaxBytes(maxBytes)
                .initialBackoff(Duration.ofMillis(10))
                .maxBackoff(Duration.ofMillis(50))
                .build();
        return new ForwardingQueue(new OtlpHttpExporter(settings, counters, Clock.systemUTC(), Sleeper.THREAD_SLEEP,
                ForkJoinPool.commonPool()),
                listener, runnable -> {
                    Thread worker = new Thread(runnable, "otlp-forward-test");
                    worker.setDaemon(true);
                    return worker;
                });
    }

    private ForwardRequest request(int i) {
        return new ForwardRequest("project-1/2026-11-22/chunk-" + i, profiles.request(i + 1).toByteArray());
    }

    @Test
    void deliversEveryOfferedRequestOnceAndTellsTheListener() {
        List<ForwardRequest> offered = new ArrayList<>();
        try (ForwardingQueue queue = queue(16, 2, 1 << 20)) {
            for (int i = 0; i < 10; i++) {
                offered.add(request(i));
                assertTrue(queue.offer(offered.get(i)));
            }
        }

        assertEquals(offered.stream().map(ForwardRequest::key).sorted().toList(), listener.keys("delivered"));
        assertEquals(10, listener.events().size());
        assertEquals(10, collector.received().size());
        for (ForwardRequest request : offered) {
            assertEquals(1, collector.received().stream()
                    .filter(received -> java.util.Arrays.equals(received.wireBody(), request.body())).count());
        }
        assertEquals(10, counters.deliveries());
        assertEquals(0, counters.queueDepth());
        assertEquals(0, counters.queueBytes());
    }

    @Test
    void tellsTheListenerOfAFinalFailure() {
        collector.then(Reply.status(400));
        try (ForwardingQueue queue = queue(4, 1, 1 << 20)) {
            assertTrue(queue.offer(request(0)));
        }

        RecordingListener.Event event = listener.events().get(0);
        assertEquals("failed", event.kind());
        assertEquals(request(0).key(), event.key());
        assertEquals(400, event.result().status());
        assertEquals(1, event.result().attempts());
        assertEquals(Map.of(400, 1L), counters.finalFailuresByStatus());
    }

    @Test
    void refusesOfferWithoutWaitingWhenTheQueueIsFull() throws InterruptedException {
        collector.holdEveryReplyUntil(releaseTarget);
        try (ForwardingQueue queue = queue(2, 1, 1 << 20)) {
            assertTrue(queue.offer(request(0)));
            // the only worker is stuck on the slow target
            Await.until("1 request at the collector", WAIT, () -> collector.received().size() == 1);
            assertTrue(queue.offer(request(1)));
            assertTrue(queue.offer(request(2)));

            // the target holds every reply until released below: an offer that waited for room would never return
            boolean accepted = assertTimeoutPreemptively(Duration.ofSeconds(10), () -> queue.offer(request(3)),
                    "offer waited for the held target");

            assertFalse(accepted);
            assertEquals(1, counters.queueRejections());
            assertEquals(2, counters.queueDepth());
            releaseTarget.countDown();
        }
        assertEquals(List.of(request(0).key(), request(1).key(), request(2).key()), listener.keys("delivered"));
        assertEquals(3, listener.events().size());
    }

    @Test
    void offerReturnsQuicklyWhileTheTargetIsSlow() throws InterruptedException {
        collector.holdEveryReplyUntil(releaseTarget);
        try (ForwardingQueue queue = queue(100, 2, 64 << 20)) {
            List<ForwardRequest> requests = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                requests.add(request(i));
            }
            // the target holds every reply until released below: an offer that waited for it would never return
            assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
                for (ForwardRequest request : requests) {
                    assertTrue(queue.offer(request));
                }
            }, "an offer waited for the held target");
            Await.until("2 requests at the collector", WAIT, () -> collector.received().size() == 2);

            assertEquals(38, counters.queueDepth(), "both workers are waiting on the target, the rest queue");
            assertEquals(0, counters.deliveries());
            releaseTarget.countDown();
        }
        assertEquals(40, listener.keys("delivered").size());
    }

    @Test
    void refusesOfferOverTheByteBound() throws InterruptedException {
        collector.holdEveryReplyUntil(releaseTarget);
        ForwardRequest first = request(3);
        try (ForwardingQueue queue = queue(100, 1, 2L * first.body().length)) {
            assertTrue(queue.offer(first));
            Await.until("1 request at the collector", WAIT, () -> collector.received().size() == 1);
            assertTrue(queue.offer(request(3)));
            assertTrue(queue.offer(request(3)));

            assertFalse(queue.offer(request(0)), "a third body would pass queue-max-bytes");
            assertEquals(2L * first.body().length, counters.queueBytes());
            releaseTarget.countDown();
        }
    }

    @Test
    void closeReportsRequestsLeftAtTheDeadlineAsDropped() throws InterruptedException {
        collector.holdEveryReplyUntil(releaseTarget);
        ForwardingQueue queue = queue(10, 1, 1 << 20);
        for (int i = 0; i < 4; i++) {
            assertTrue(queue.offer(request(i)));
        }
        Await.until("1 request at the collector", WAIT, () -> collector.received().size() == 1);

        long start = System.nanoTime();
        boolean drained = queue.close(Duration.ofMillis(300));
        Duration took = Duration.ofNanos(System.nanoTime() - start);

        assertFalse(drained);
        assertTrue(took.compareTo(Duration.ofSeconds(3)) < 0, "close took " + took.toMillis() + " ms");
        assertEquals(List.of(request(0).key(), request(1).key(), request(2).key(), request(3).key()),
                listener.keys("dropped"));
        assertEquals(4, listener.events().size());
        assertEquals(4, counters.queueDropped());
        assertEquals(0, counters.queueDepth());
        assertFalse(queue.offer(request(5)), "closed");
    }

    @Test
    void closeDeliversWhatIsQueuedWhenTheTargetAnswersBeforeTheDeadline() throws Exception {
        collector.holdEveryReplyUntil(releaseTarget);
        ForwardingQueue queue = queue(10, 1, 1 << 20);
        for (int i = 0; i < 3; i++) {
            assertTrue(queue.offer(request(i)));
        }
        Thread release = new Thread(() -> {
            sleep(200);
            releaseTarget.countDown();
        });
        release.start();

        boolean drained = queue.close(Duration.ofSeconds(10));
        release.join();

        assertTrue(drained);
        assertEquals(3, listener.keys("delivered").size());
        assertEquals(3, listener.events().size());
        assertEquals(3, collector.received().size());
    }

    @Test
    void deliversTheBodyItWasGivenByteForByte() {
        ForwardRequest request = request(7);
        try (ForwardingQueue queue = queue(4, 1, 1 << 20)) {
            assertTrue(queue.offer(request));
        }
        assertArrayEquals(request.body(), collector.received().get(0).wireBody());
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
