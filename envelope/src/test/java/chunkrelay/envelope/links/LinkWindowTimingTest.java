package chunkrelay.envelope.links;

import chunkrelay.chunk.testing.Await;
import chunkrelay.envelope.derivation.ChunkDerivations;
import chunkrelay.envelope.derivation.DerivationSchedule;
import chunkrelay.envelope.recovery.UnderivedSearch;
import chunkrelay.envelope.testing.OtlpReceiver;
import chunkrelay.envelope.testing.PrometheusScrape;
import chunkrelay.envelope.testing.RunningRelay;
import chunkrelay.storage.ArchivedChunk;
import chunkrelay.storage.EmbeddedS3Server;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.LocalDate;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static chunkrelay.envelope.links.JavaCapture.JAVA_CHUNK_1;
import static chunkrelay.envelope.links.JavaCapture.JAVA_CHUNK_2;
import static chunkrelay.envelope.links.JavaCapture.JAVA_LINKED;
import static chunkrelay.envelope.links.JavaCapture.JAVA_TRANSACTION;
import static chunkrelay.envelope.links.JavaCapture.chunkId;
import static chunkrelay.envelope.links.JavaCapture.derived;
import static chunkrelay.envelope.links.JavaCapture.linkedByChunk;
import static chunkrelay.envelope.links.JavaCapture.linkedBySpan;
import static chunkrelay.envelope.links.JavaCapture.send;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The link window, the recovery grace and the heartbeats on the relay's clock, moved by the test ({@code test.clock:
 * manual}) instead of waited for: what happens at a moment is checked at that moment, in the running relay with its
 * bucket. The crash paths (a relay killed with chunks in their window) stay in {@link TraceLinksTest}, on forked
 * relays.
 */
class LinkWindowTimingTest {
    /** Only for work the clock has already made due, handed out by another thread. */
    private static final Duration WAIT = Duration.ofSeconds(30);

    private static Map<String, Object> relay(String window, String... more) {
        Map<String, Object> properties = new HashMap<>(Map.of("test.clock", "manual", "relay.links.window", window,
                "relay.links.span-log", "true", "relay.links.recovery-interval", "1s"));
        for (int i = 0; i < more.length; i += 2) {
            properties.put(more[i], more[i + 1]);
        }
        return properties;
    }

    /** Moves the relay's clock and runs what that made due. */
    private static void advance(RunningRelay relay, Duration by) {
        relay.clock().advance(by);
        relay.bean(DerivationSchedule.class).runDue();
    }

    private static double searches(RunningRelay relay) {
        return PrometheusScrape.of(relay.uri()).valueOrZeroBeforeFirstUse("relay_recovery_searches_total");
    }

    @Test
    void chunksAreDerivedWithTheirLinksWhenTheWindowEndsOnTheClockAndNotBefore() throws Exception {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             RunningRelay relay = RunningRelay.start(s3, relay("3s"))) {
            for (String request : List.of(JAVA_CHUNK_1, JAVA_TRANSACTION, JAVA_CHUNK_2)) {
                send(relay.client(), request);
            }

            advance(relay, Duration.ofMillis(2_999));
            assertEquals(List.of(), relay.archivedChunks(), "inside the window");
            assertEquals(2, relay.bean(ChunkDerivations.class).pendingCount());

            advance(relay, Duration.ofMillis(1));
            Await.until("both chunks derived", WAIT, () -> relay.archivedChunks().size() == 2);
            Map<String, ExportProfilesServiceRequest> otlp = derived(relay.archive(), relay.archivedChunks(),
                    JAVA_CHUNK_1, JAVA_CHUNK_2);
            otlp.forEach((request, form) -> assertEquals(JAVA_LINKED.get(request),
                    linkedBySpan(form, 1).values().stream().mapToInt(Integer::intValue).sum(), request));
        }
    }

    @Test
    void spanArrivingAfterTheWindowChangesNothingAlreadyWritten() throws Exception {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             OtlpReceiver receiver = OtlpReceiver.start();
             RunningRelay relay = RunningRelay.start(s3, relay("1s",
                     "relay.otlp.endpoint", receiver.endpoint().toString()))) {
            send(relay.client(), JAVA_CHUNK_1);
            advance(relay, Duration.ofSeconds(1));
            Await.until("the chunk derived and forwarded", WAIT,
                    () -> relay.archivedChunks().size() == 1 && receiver.received().size() == 1);
            ArchivedChunk chunk = relay.archivedChunks().get(0);
            byte[] before = relay.archive().readOtlp(chunk);

            send(relay.client(), JAVA_TRANSACTION);
            advance(relay, Duration.ofMillis(2_500));
            advance(relay, Duration.ofMinutes(10));

            assertArrayEquals(before, relay.archive().readOtlp(relay.archivedChunks().get(0)));
            assertEquals(Map.of(), linkedBySpan(ExportProfilesServiceRequest.parseFrom(before), 1));
            assertEquals(1, receiver.received().size(), "forwarded once, never again for a late span");
        }
    }

    @Test
    void aPeerLeavesABeatingRelaysChunksAloneAndDerivesThemOnceWithTheirLinksWhenItStopsBeating() throws Exception {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             OtlpReceiver receiver = OtlpReceiver.start();
             RunningRelay peer = RunningRelay.start(s3, relay("1s",
                     "relay.otlp.endpoint", receiver.endpoint().toString()));
             RunningRelay holder = RunningRelay.start(s3, relay("10m"))) {
            for (String request : List.of(JAVA_CHUNK_1, JAVA_TRANSACTION, JAVA_CHUNK_2)) {
                send(holder.client(), request);
            }
            // a minute of both relays beating every second: the holder keeps its chunks, the peer searched only at
            // its start
            for (int second = 0; second < 60; second++) {
                advance(holder, Duration.ofSeconds(1));
                advance(peer, Duration.ofSeconds(1));
            }
            assertEquals(1, searches(peer));
            assertEquals(List.of(), receiver.received());

            // the holder's clock stops, and with it its heartbeat: stale after an interval, the window and the grace
            for (int second = 0; second < 11; second++) {
                advance(peer, Duration.ofSeconds(1));
            }
            assertEquals(1, searches(peer), "the holder's heartbeat is stale only 12 s after its last beat");
            // the holder started after the peer, so its clock reads up to a few seconds later than the peer's
            for (int second = 0; second < 20; second++) {
                advance(peer, Duration.ofSeconds(1));
            }
            Await.until("the peer derives and forwards both chunks", WAIT,
                    () -> receiver.received().size() >= 2);
            for (int second = 0; second < 30; second++) {
                advance(peer, Duration.ofSeconds(1));
            }
            assertEquals(2, receiver.received().size(), "each chunk forwarded once");
            assertEquals(2, searches(peer), "one search for the silent relay, none after its heartbeat was removed");
            assertEquals(Map.of(chunkId(JAVA_CHUNK_1), 965, chunkId(JAVA_CHUNK_2), 469), linkedByChunk(receiver),
                    "linked through the span log the holder wrote");
        }
    }

    @Test
    void replayDerivesAChunkLeftUnderivedOnlyOnceItsGraceHasPassed() throws Exception {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             RunningRelay holder = RunningRelay.start(s3, relay("10m"));
             RunningRelay replayer = RunningRelay.start(s3, relay("0s"))) {
            send(holder.client(), JAVA_CHUNK_1);
            UnderivedSearch search = replayer.bean(UnderivedSearch.class);
            List<LocalDate> days = replayer.archive().listDays("1");
            LocalDate from = days.get(0);
            LocalDate to = days.get(days.size() - 1);

            // the chunk was written after the replaying relay started, so after the time its clock still reads
            replayer.clock().advance(UnderivedSearch.RECOVERY_GRACE.minusSeconds(1));
            assertEquals(new UnderivedSearch.ReplayDerivations(0, 0), search.deriveForReplay("1", from, to));
            replayer.clock().advance(Duration.ofMinutes(1));
            assertEquals(new UnderivedSearch.ReplayDerivations(1, 0), search.deriveForReplay("1", from, to));
            assertEquals(1, replayer.archivedChunks().size());
        }
    }
}
