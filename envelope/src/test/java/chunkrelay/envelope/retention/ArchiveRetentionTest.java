package chunkrelay.envelope.retention;

import chunkrelay.envelope.schedule.BackgroundWork;
import chunkrelay.envelope.testing.DatedChunks;
import chunkrelay.envelope.testing.Envelopes;
import chunkrelay.envelope.testing.PrometheusScrape;
import chunkrelay.envelope.testing.RunningRelay;
import chunkrelay.retry.TestClock;
import chunkrelay.storage.EmbeddedS3Server;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The relay's retention sweep on its own clock, moved by the test ({@code test.clock: manual}), over a real S3 server:
 * chunks sent through the envelope endpoint for days in the past, then the clock moved on. The background work is
 * held ({@link BackgroundWork#hold}), so that the sweeps are the test's own {@code runDue} calls, none run by the
 * schedule's thread between moving the clock and sending the next envelope.
 */
class ArchiveRetentionTest {
    private static final Map<String, Object> RETENTION = Map.of("test.clock", "manual",
            "relay.storage.retention", "2d", "relay.projects.3.retention", "10d",
            "relay.storage.retention-interval", "1h", "relay.rollups.enabled", "false");

    private EmbeddedS3Server s3;

    @BeforeEach
    void startS3() {
        s3 = EmbeddedS3Server.inMemory();
    }

    @AfterEach
    void stopS3() {
        s3.close();
    }

    private static void send(RunningRelay relay, String project, Instant firstSample, int chunk) {
        assertEquals(200, relay.client().post("/api/" + project + "/envelope/",
                DatedChunks.envelope(firstSample, chunk), "X-Sentry-Auth", Envelopes.AUTH).status());
    }

    /** The days of a project that have objects in the bucket. */
    private Set<String> days(String project) {
        return RunningRelay.objects(s3).keySet().stream().filter(key -> key.startsWith(project + "/"))
                .map(key -> key.split("/")[1]).collect(Collectors.toSet());
    }

    @Test
    void daysPastAProjectsRetentionAreSweptAndRecentDaysAndLongerRetentionsKept() throws Exception {
        try (RunningRelay relay = RunningRelay.start(s3, RETENTION)) {
            relay.bean(BackgroundWork.class).hold();
            TestClock clock = relay.clock();
            Instant fiveDaysAgo = clock.instant().minus(Duration.ofDays(5));
            send(relay, "1", fiveDaysAgo, 1);
            send(relay, "3", fiveDaysAgo, 2);
            String oldDay = LocalDate.ofInstant(fiveDaysAgo, ZoneOffset.UTC).toString();
            assertEquals(2, RunningRelay.objects(s3).keySet().stream().filter(k -> k.startsWith("1/" + oldDay))
                    .count(), "both forms archived");
            ArchiveRetention retention = relay.bean(ArchiveRetention.class);
            retention.runDue();
            assertEquals(Set.of(oldDay), days("1"), "written just now: kept, whatever its day");

            long oldDayObjects = objectsOf("1", oldDay);
            clock.advance(Duration.ofDays(3));
            send(relay, "1", clock.instant(), 3);
            retention.runDue();

            String today = LocalDate.ofInstant(clock.instant(), ZoneOffset.UTC).toString();
            assertEquals(Set.of(today), days("1"), "project 1's old day gone, its recent chunk kept");
            assertEquals(Set.of(oldDay), days("3"), "project 3 keeps ten days");
            assertEquals(2, relay.archivedChunks().size());
            PrometheusScrape metrics = PrometheusScrape.of(relay.uri());
            assertEquals(oldDayObjects, metrics.value("relay_retention_deleted_objects_total"),
                    "the day's two forms and its index entries");
            assertTrue(metrics.value("relay_retention_deleted_bytes_total") > 1000);
            assertEquals(objectsOf("1", today), metrics.value("relay_archive_project_objects", "project", "1"),
                    "the recent chunk's forms and index entries");
            assertTrue(metrics.value("relay_archive_project_bytes", "project", "3") > 1000);

            clock.advance(Duration.ofDays(8));
            retention.runDue();
            assertEquals(Set.of(), days("3"), "project 3's day gone after ten days");
            assertEquals(List.of(), relay.archivedChunks());
        }
    }

    @Test
    void ofTwoReplicasSharingTheBucketOneSweepsEachInterval() throws Exception {
        try (RunningRelay a = RunningRelay.start(s3, RETENTION); RunningRelay b = RunningRelay.start(s3, RETENTION)) {
            List<RunningRelay> replicas = List.of(a, b);
            replicas.forEach(r -> r.bean(BackgroundWork.class).hold());
            Instant fiveDaysAgo = a.clock().instant().minus(Duration.ofDays(5));
            send(a, "1", fiveDaysAgo, 1);
            send(b, "1", fiveDaysAgo.plusSeconds(60), 2);

            replicas.forEach(r -> r.bean(ArchiveRetention.class).runDue());
            assertEquals(1, sweeps(replicas), "at start");
            for (int interval = 1; interval <= 3; interval++) {
                replicas.forEach(r -> r.clock().advance(Duration.ofHours(1)));
                replicas.forEach(r -> r.bean(ArchiveRetention.class).runDue());
                assertEquals(1 + interval, sweeps(replicas), "interval " + interval);
            }
            String oldDay = LocalDate.ofInstant(fiveDaysAgo, ZoneOffset.UTC).toString();
            long oldDayObjects = objectsOf("1", oldDay);
            replicas.forEach(r -> r.clock().advance(Duration.ofDays(3)));
            replicas.forEach(r -> r.bean(ArchiveRetention.class).runDue());

            assertEquals(5, sweeps(replicas));
            assertEquals(Set.of(), days("1"));
            assertEquals(oldDayObjects, PrometheusScrape.of(a.uri()).valueOrZeroBeforeFirstUse("relay_retention_deleted_objects_total")
                    + PrometheusScrape.of(b.uri()).valueOrZeroBeforeFirstUse("relay_retention_deleted_objects_total"),
                    "each object deleted once");
            long publishing = replicas.stream()
                    .filter(r -> PrometheusScrape.of(r.uri()).has("relay_archive_project_objects")).count();
            assertTrue(publishing <= 1, "sizes published by the sweeping replica only");
        }
    }

    /** The objects of a project's day: its chunks' and its index entries, late or not. */
    private long objectsOf(String project, String day) {
        return RunningRelay.objects(s3).keySet().stream().filter(key -> key.startsWith(project + "/" + day + "/")
                || key.startsWith("index/" + project + "/" + day + "/")
                || key.startsWith("late/" + project + "/" + day + "/")).count();
    }

    private static double sweeps(List<RunningRelay> replicas) {
        return replicas.stream().mapToDouble(r -> PrometheusScrape.of(r.uri())
                .valueOrZeroBeforeFirstUse("relay_retention_sweeps_total", "outcome", "swept")).sum();
    }
}
