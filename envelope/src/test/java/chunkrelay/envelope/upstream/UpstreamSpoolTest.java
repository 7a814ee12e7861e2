package chunkrelay.envelope.upstream;

import chunkrelay.retry.TestClock;
import chunkrelay.storage.ArchiveLayout;
import chunkrelay.storage.ArchiveSettings;
import chunkrelay.storage.EmbeddedS3Server;
import chunkrelay.storage.ObjectLease;
import chunkrelay.storage.ObjectStore;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The spool on an in-memory bucket, without HTTP: the delivery is a stand-in that records what it was handed and
 * answers whether the envelope is settled.
 */
class UpstreamSpoolTest {
    private static final Instant START = Instant.parse("2026-11-22T03:00:00Z");
    private static final UpstreamConfig CONFIG = new UpstreamConfig("http://upstream.invalid", false, 1000, 1 << 26,
            Duration.ofHours(24), Duration.ofSeconds(3), Duration.ofSeconds(5), Duration.ofSeconds(1),
            Duration.ofSeconds(1), Duration.ofSeconds(60), Duration.ofSeconds(5), 2, Duration.ofSeconds(60), 16);

    private final TestClock clock = new TestClock(START);
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final List<Long> handed = new ArrayList<>();
    private boolean upstreamTakes = true;
    private EmbeddedS3Server server;
    private ObjectStore store;
    private UpstreamSpool spool;

    @BeforeEach
    void openSpool() {
        server = EmbeddedS3Server.inMemory();
        store = ObjectStore.inProcess(server, ArchiveSettings.defaults().withBucket("spool-test"), clock);
        spool = new UpstreamSpool(CONFIG, store, meters, clock, envelope -> {
            handed.add(envelope.projectId());
            return upstreamTakes;
        });
    }

    @AfterEach
    void closeStore() {
        store.close();
        server.close();
    }

    private static UpstreamEnvelope envelope(long project, Instant receivedAt) {
        ForwardedItem item = new ForwardedItem("event", "{\"type\":\"event\"}".getBytes(StandardCharsets.UTF_8),
                "{}".getBytes(StandardCharsets.UTF_8));
        return new UpstreamEnvelope(project, "c0ffee", null, JsonNodeFactory.instance.objectNode(), List.of(item),
                receivedAt, null, null, "127.0.0.1");
    }

    private double depth() {
        return meters.get("relay.upstream.spool.depth").gauge().value();
    }

    @Test
    void sendsTheOldestArrivalFirstAndDeletesWhatIsSettled() {
        spool.add(envelope(2, START.minusSeconds(10)));
        spool.add(envelope(1, START.minusSeconds(20)));
        assertEquals(2.0, depth());

        spool.sendRound();

        assertEquals(List.of(1L, 2L), handed);
        assertEquals(List.of(), store.listObjects(ArchiveLayout.UPSTREAM_SPOOL));
        assertEquals(List.of(), store.listObjects(ArchiveLayout.UPSTREAM_SPOOL_CLAIMS), "claims are released");
        assertEquals(0.0, depth());
    }

    @Test
    void keepsWhatTheUpstreamDidNotTakeAndBacksOffBeforeTheNextRound() {
        spool.add(envelope(1, START.minusSeconds(20)));
        spool.add(envelope(2, START.minusSeconds(10)));
        upstreamTakes = false;

        spool.sendRound();
        assertEquals(List.of(1L), handed, "a round stops at the first envelope the upstream does not take");
        assertEquals(20.0, meters.get("relay.upstream.spool.oldest.age").gauge().value());
        spool.sendRound();
        assertEquals(List.of(1L), handed, "no round before the backoff (at least half of retry-initial) is over");

        upstreamTakes = true;
        clock.advance(CONFIG.retryInitial());
        spool.sendRound();
        assertEquals(List.of(1L, 1L, 2L), handed);
        assertEquals(List.of(), store.listObjects(ArchiveLayout.UPSTREAM_SPOOL));
    }

    @Test
    void leavesAnEnvelopeClaimedByAnotherRelayToIt() {
        spool.add(envelope(1, START.minusSeconds(20)));
        String key = store.listObjects(ArchiveLayout.UPSTREAM_SPOOL).get(0);
        ObjectLease other = new ObjectLease(store,
                ArchiveLayout.UPSTREAM_SPOOL_CLAIMS + key.substring(ArchiveLayout.UPSTREAM_SPOOL.length()) + ".",
                CONFIG.spoolClaim(), clock, "another-relay");
        assertEquals(true, other.acquire());

        spool.sendRound();

        assertEquals(List.of(), handed);
        assertEquals(List.of(key), store.listObjects(ArchiveLayout.UPSTREAM_SPOOL));
    }
}
