package chunkrelay.storage;

import org.gaul.s3proxy.BlobStores;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.auth.AuthenticationType;
import org.gaul.s3proxy.blobstore.BlobStore;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * An S3 server (S3Proxy) running in this process on 127.0.0.1 and a random port: the relay's default archive
 * when no bucket is configured, and the real S3 server of the tests. With a directory, objects are plain files
 * under {@code {directory}/{bucket}/{key}} (metadata in user xattrs); without one they live in memory.
 */
public final class EmbeddedS3Server implements AutoCloseable {

    private static final String ALPHANUMERIC = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    private static final long START_TIMEOUT_MILLIS = 10_000;

    private final BlobStore blobStore;
    private final Path directory;
    private final String accessKey;
    private final String secretKey;
    /** Whether requests must be signed with the credentials; the relay's own default store on loopback needs not. */
    private final boolean checksSignatures;
    private volatile S3Proxy proxy;
    private int port;

    private EmbeddedS3Server(BlobStore blobStore, Path directory, String accessKey, String secretKey,
                             boolean checksSignatures) {
        this.blobStore = blobStore;
        this.directory = directory;
        this.accessKey = accessKey;
        this.secretKey = secretKey;
        this.checksSignatures = checksSignatures;
    }

    /**
     * Starts a server storing files under {@code directory} that checks no signatures: the relay's default archive.
     * It listens on loopback only, and signing would cost the relay a hash of every payload it writes.
     */
    public static EmbeddedS3Server unsignedFilesystem(Path directory) {
        return start(directory, null, null, false);
    }

    /** Starts a server storing files under {@code directory} (created if missing), with generated credentials. */
    public static EmbeddedS3Server filesystem(Path directory) {
        return start(directory, null, null);
    }

    /** Starts a server keeping objects in memory, with generated credentials: for tests. */
    public static EmbeddedS3Server inMemory() {
        return start(null, null, null);
    }

    /**
     * Starts a server on 127.0.0.1 and a random port.
     *
     * @param directory where files go, or {@code null} for memory only
     * @param accessKey fixed access key, or {@code null} to generate the pair
     * @param secretKey fixed secret key, or {@code null} to generate the pair
     */
    public static EmbeddedS3Server start(Path directory, String accessKey, String secretKey) {
        return start(directory, accessKey, secretKey, true);
    }

    private static EmbeddedS3Server start(Path directory, String accessKey, String secretKey,
                                          boolean checksSignatures) {
        if ((accessKey == null) != (secretKey == null)) {
            throw new IllegalArgumentException("set both the access key and the secret key, or neither");
        }
        BlobStore blobStore;
        Path dir = null;
        if (directory == null) {
            blobStore = BlobStores.create("transient", new Properties());
        } else {
            dir = directory.toAbsolutePath().normalize();
            try {
                Files.createDirectories(dir);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot create the embedded archive directory " + dir, e);
            }
            Properties properties = new Properties();
            properties.setProperty("jclouds.filesystem.basedir", dir.toString());
            blobStore = BlobStores.create("filesystem", properties);
        }
        EmbeddedS3Server server = new EmbeddedS3Server(blobStore, dir,
                accessKey != null ? accessKey : random(20), secretKey != null ? secretKey : random(40),
                checksSignatures);
        server.serve(0);
        return server;
    }

    /** {@code http://127.0.0.1:{port}}. */
    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + port);
    }

    public int port() {
        return port;
    }

    public String accessKey() {
        return accessKey;
    }

    public String secretKey() {
        return secretKey;
    }

    /** The directory holding the files, empty for the in-memory server. */
    public Optional<Path> directory() {
        return Optional.ofNullable(directory);
    }

    /**
     * {@code settings} pointed at this server: endpoint, path-style, region us-east-1 and its credentials, or
     * unsigned requests when it checks no signatures.
     */
    public ArchiveSettings applyTo(ArchiveSettings settings) {
        ArchiveSettings here = settings.withEndpoint(endpoint()).withPathStyle(true)
                .withRegion(ArchiveSettings.DEFAULT_REGION);
        return checksSignatures ? here.withCredentials(accessKey, secretKey) : here.withAnonymousAccess();
    }

    /** A client of this server's store in this process, unreachable while the server is stopped. */
    InProcessS3Client inProcessClient() {
        return new InProcessS3Client(blobStore, this::serving);
    }

    private boolean serving() {
        return proxy != null;
    }

    public boolean checksSignatures() {
        return checksSignatures;
    }

    /** Stops serving; the objects stay and {@link #restart()} serves them again on the same port. */
    public synchronized void stop() {
        if (proxy != null) {
            try {
                proxy.stop();
            } catch (Exception e) {
                throw new IllegalStateException("cannot stop the embedded S3 server", e);
            }
            if (!"STOPPED".equals(proxy.getState())) {
                throw new IllegalStateException("embedded S3 server did not stop, state " + proxy.getState());
            }
            proxy = null;
        }
    }

    /** Serves the same objects again on the same port after {@link #stop()}. */
    public synchronized void restart() {
        if (proxy == null) {
            serve(port);
        }
    }

    @Override
    public void close() {
        stop();
    }

    private synchronized void serve(int requestedPort) {
        S3Proxy started = S3Proxy.builder()
                .blobStore(blobStore)
                .endpoint(URI.create("http://127.0.0.1:" + requestedPort))
                .awsAuthentication(checksSignatures ? AuthenticationType.AWS_V2_OR_V4 : AuthenticationType.NONE,
                        accessKey, secretKey)
                // no graceful wait: the relay drains its own requests before closing the archive, and
                // Jetty's wait would otherwise be held up by the client's idle keep-alive connections
                .stopTimeout(0)
                .build();
        try {
            started.start();
            // elapsed time, not a date: the start is timed on the monotonic clock
            long giveUp = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(START_TIMEOUT_MILLIS);
            while (!"STARTED".equals(started.getState())) {
                if (System.nanoTime() - giveUp > 0) {
                    throw new IllegalStateException("embedded S3 server did not start, state " + started.getState());
                }
                Thread.sleep(5);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while starting the embedded S3 server", e);
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("cannot start the embedded S3 server on 127.0.0.1:" + requestedPort, e);
        }
        proxy = started;
        port = started.getPort();
    }

    private static String random(int length) {
        SecureRandom random = new SecureRandom();
        StringBuilder s = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            s.append(ALPHANUMERIC.charAt(random.nextInt(ALPHANUMERIC.length())));
        }
        return s.toString();
    }
}
