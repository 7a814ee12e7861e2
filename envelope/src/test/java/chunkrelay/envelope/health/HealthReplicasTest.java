package chunkrelay.envelope.health;

import chunkrelay.envelope.testing.RelayClient;
import chunkrelay.envelope.testing.RunningRelay;
import chunkrelay.storage.ArchiveLayout;
import chunkrelay.storage.EmbeddedS3Server;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two relays on one bucket, each sent part of the captures and invalid chunks: either one's health answer is the
 * test's own count of everything sent, once, however often the replicas write their counts.
 */
class HealthReplicasTest {

    @Test
    void twoRelaysOnOneBucketAnswerEveryChunkOnceNotTwice() {
        SentChunks sent = new SentChunks();
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             RunningRelay a = RunningRelay.start(s3, Map.of());
             RunningRelay b = RunningRelay.start(s3, Map.of())) {
            Instant start = Instant.now();
            List<HealthSends.Send> sends = HealthSends.all(sent);
            HealthSends.send(sends, i -> i % 2 == 0 ? a.client() : b.client());
            String path = "/api/v1/projects/1/health?from=" + (start.getEpochSecond() - 60) + "&to="
                    + (Instant.now().getEpochSecond() + 60);
            Map<String, SentChunks.Row> expected = sent.rows();

            // a writes its counts as it answers; b's are not in the bucket until b writes them
            RelayClient.Answer aAlone = a.client().get(path);
            assertEquals(200, aAlone.status(), aAlone.raw());
            assertTrue(SentChunks.rows(aAlone.body()).values().stream().mapToLong(SentChunks.Row::chunks).sum()
                    < expected.values().stream().mapToLong(SentChunks.Row::chunks).sum(), "b's chunks are not in a's part");
            // b's answer writes b's counts and reads a's: everything, once
            assertEquals(expected, SentChunks.rows(b.client().get(path).body()));
            // each relay writes again (nothing changed) and again after a share: still once
            a.bean(HealthCounts.class).share();
            b.bean(HealthCounts.class).share();
            assertEquals(expected, SentChunks.rows(a.client().get(path).body()));
            assertEquals(expected, SentChunks.rows(b.client().get(path).body()));

            // one part per replica and hour in the bucket: each write removed the one it replaced
            Map<String, Integer> parts = new HashMap<>();
            for (String key : a.objects().keySet()) {
                if (key.startsWith(ArchiveLayout.HEALTH)) {
                    String name = key.substring(key.lastIndexOf('/') + 1);
                    parts.merge(name.substring(0, name.lastIndexOf('.')), 1, Integer::sum);
                }
            }
            assertTrue(parts.size() >= 2, "both replicas wrote: " + parts);
            parts.forEach((hourAndReplica, count) -> assertEquals(1, count, hourAndReplica));
        }
    }
}
