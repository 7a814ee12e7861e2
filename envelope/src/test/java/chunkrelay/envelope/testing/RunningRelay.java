package chunkrelay.envelope.testing;

import chunkrelay.retry.TestClock;
import chunkrelay.storage.ArchiveFixtures;
import chunkrelay.storage.ArchiveLayout;
import chunkrelay.storage.ArchiveSettings;
import chunkrelay.storage.ArchivedChunk;
import chunkrelay.storage.ChunkArchive;
import chunkrelay.storage.EmbeddedS3Server;
import io.micronaut.context.ApplicationContext;
import io.micronaut.runtime.server.EmbeddedServer;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

import java.net.URI;
import java.time.Clock;
import java.time.LocalDate;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The real relay for acceptance tests: the Micronaut server on a random port ({@code test} environment) with its
 * archive in a test's S3 server ({@link EmbeddedS3Server}), plus a look at the bucket that bypasses the relay.
 */
public final class RunningRelay implements AutoCloseable {
    public static final String BUCKET = "acceptance";

    private final EmbeddedServer server;
    private final EmbeddedS3Server s3;

    private RunningRelay(EmbeddedServer server, EmbeddedS3Server s3) {
        this.server = server;
        this.s3 = s3;
    }

    /** A relay archiving into {@code s3}, with {@code properties} on top (e.g. {@code relay.otlp.*}). */
    public static RunningRelay start(EmbeddedS3Server s3, Map<String, Object> properties) {
        Map<String, Object> all = new HashMap<>(storageProperties(s3));
        all.putAll(properties);
        return new RunningRelay(ApplicationContext.run(EmbeddedServer.class, all, "test"), s3);
    }

    public static Map<String, Object> storageProperties(EmbeddedS3Server s3) {
        return Map.of("relay.storage.s3.endpoint", s3.endpoint().toString(),
                "relay.storage.s3.bucket", BUCKET,
                "relay.storage.s3.path-style", "true",
                "relay.storage.s3.region", ArchiveSettings.DEFAULT_REGION,
                "relay.storage.s3.access-key", s3.accessKey(),
                "relay.storage.s3.secret-key", s3.secretKey());
    }

    public RelayClient client() {
        return new RelayClient(server.getURI());
    }

    public URI uri() {
        return server.getURI();
    }

    /** A relay started with {@code test.clock: manual} ({@link TestClockFactory}): its clock, for the test to move. */
    public TestClock clock() {
        return (TestClock) bean(Clock.class);
    }

    public <T> T bean(Class<T> type) {
        return server.getApplicationContext().getBean(type);
    }

    public ChunkArchive archive() {
        return bean(ChunkArchive.class);
    }

    /**
     * Every object in the bucket but the retention sweep's lease (which each relay writes at start, and which no test
     * of what the relay archives counts), key to ETag, read with a client of its own.
     */
    public Map<String, String> objects() {
        return objects(s3);
    }

    /** The chunks' objects only: every object but the index by time, its late queue, the rollups and health counts. */
    public Map<String, String> chunkObjects() {
        Map<String, String> chunks = new TreeMap<>(objects());
        chunks.keySet().removeIf(key -> key.startsWith("index/") || key.startsWith("late/")
                || key.startsWith("rollups/") || key.startsWith(ArchiveLayout.HEALTH));
        return chunks;
    }

    public static Map<String, String> objects(EmbeddedS3Server s3) {
        try (S3Client client = ArchiveFixtures.rawClient(s3)) {
            Map<String, String> objects = new TreeMap<>();
            for (S3Object object : client.listObjectsV2Paginator(b -> b.bucket(BUCKET)).contents()) {
                if (!object.key().startsWith(ArchiveLayout.RETENTION_LEASE)) {
                    objects.put(object.key(), object.eTag());
                }
            }
            return objects;
        }
    }

    /** The archived chunks, found from the bucket's keys and read back through the archive. */
    public List<ArchivedChunk> archivedChunks() {
        return archivedChunks(archive(), objects());
    }

    public static List<ArchivedChunk> archivedChunks(ChunkArchive archive, Map<String, String> objects) {
        // chunk keys are {project}/{yyyy-mm-dd}/...: list each day that has objects (the relay's own folders, such
        // as the span log and the upstream spool, are not projects)
        TreeSet<String> projectDays = new TreeSet<>();
        for (String key : objects.keySet()) {
            String[] parts = key.split("/");
            if (parts.length > 2 && parts[0].matches("[0-9]+")) {
                projectDays.add(parts[0] + "/" + parts[1]);
            }
        }
        return projectDays.stream().flatMap(projectDay -> {
            String[] parts = projectDay.split("/");
            LocalDate day = LocalDate.parse(parts[1]);
            return archive.list(parts[0], day, day).stream();
        }).toList();
    }

    @Override
    public void close() {
        server.getApplicationContext().close();
    }
}
