package chunkrelay.storage;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.auth.credentials.AnonymousCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.exception.SdkServiceException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;
import software.amazon.awssdk.services.s3.model.BucketAlreadyOwnedByYouException;
import software.amazon.awssdk.services.s3.model.CommonPrefix;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

import java.net.ConnectException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;

/**
 * The archive of accepted chunks in an S3 bucket: both forms of each chunk under one stem
 * {@code {prefix}{project}/{yyyy-mm-dd}/{profiler}/{chunk}}, plus small delivery and replay markers.
 *
 * <p>Write order: the Sentry object first, the OTLP object last. The OTLP object is the completion marker: a
 * chunk counts as archived (for {@link #archive}'s duplicate answer and for {@link #list}) only once it exists,
 * and since it is written after the Sentry object both exist by then. Both writes are conditional
 * ({@code If-None-Match: *}), so concurrent archivers of one chunk (threads or relays) converge: whoever creates
 * the OTLP object stored the chunk, everyone else sees 412 and answers {@link ArchiveResult#DUPLICATE}. When the
 * OTLP write fails for good, a Sentry object this call created is deleted again (best effort, and only when no
 * OTLP attempt can have landed); one that is left behind is inert (never listed) and the next archive call of
 * the same chunk completes it. Objects are compressed deterministically, so a retry writes the same bytes.
 *
 * <p>Requests are retried with exponential backoff and jitter inside one deadline per call; the SDK's own
 * retries are off so that a 412 after a failed attempt of ours is known to be ambiguous and is settled with a
 * HEAD of the object's {@code write-id}. Thread-safe; one instance per bucket.
 */
public final class ChunkArchive implements AutoCloseable {

    static final String SENTRY_SUFFIX = ".sentry.json";
    /** Where payloads the relay failed on are kept, beside (not under) the projects' chunks. */
    public static final String QUARANTINE_PREFIX = "quarantine/";
    static final String OTLP_SUFFIX = ".otlp.binpb";
    static final String DELIVERED_SUFFIX = ".delivered";
    static final String REPLAY_SUFFIX = ".replay";
    /** User metadata naming the archive call that wrote an object, to settle ambiguous 412s. */
    static final String WRITE_ID = "write-id";

    private static final Logger LOG = LoggerFactory.getLogger(ChunkArchive.class);
    private static final int MAX_METADATA_VALUE_LENGTH = 256;
    private static final Duration MAX_BACKOFF = Duration.ofSeconds(2);

    private final ArchiveSettings settings;
    private final AwsCredentialsProvider credentials;
    private final S3Client s3;
    private final Cache<String, Boolean> recentlyArchived;
    private volatile boolean bucketReady;

    public ChunkArchive(ArchiveSettings settings) {
        this(settings, credentials(settings), null);
    }

    private ChunkArchive(ArchiveSettings settings, AwsCredentialsProvider credentials, S3Client s3) {
        this.settings = settings;
        this.credentials = credentials;
        this.s3 = s3 != null ? s3 : client(settings, credentials);
        this.recentlyArchived = Caffeine.newBuilder().maximumSize(settings.recentChunks()).build();
    }

    /**
     * The archive in an embedded server's own store, reached in this process: the same S3 requests and answers as
     * over the server's HTTP endpoint (which keeps serving the objects to everyone else), without the exchange.
     * For the relay's default store, where the HTTP exchange cost more CPU than the chunk it carried.
     */
    public static ChunkArchive inProcess(EmbeddedS3Server server, ArchiveSettings settings) {
        return new ChunkArchive(server.applyTo(settings), AnonymousCredentialsProvider.create(),
                server.inProcessClient());
    }

    private static AwsCredentialsProvider credentials(ArchiveSettings settings) {
        return settings.anonymous() ? AnonymousCredentialsProvider.create()
                : settings.accessKey() != null
                ? StaticCredentialsProvider.create(AwsBasicCredentials.create(settings.accessKey(), settings.secretKey()))
                : DefaultCredentialsProvider.builder().build();
    }

    public ArchiveSettings settings() {
        return settings;
    }

    /**
     * Archives both forms of a chunk, or finds it already archived.
     *
     * @throws ArchiveUnavailableException when the bucket could not be written within the deadline
     */
    public ArchiveResult archive(ArchiveEntry entry) {
        String stem = settings.prefix() + entry.key().stem();
        if (recentlyArchived.getIfPresent(stem) != null) {
            return ArchiveResult.DUPLICATE;
        }
        Deadline deadline = new Deadline(settings.deadline());
        ensureBucket(deadline);
        ArchiveCompression compression = settings.compression();
        String writeId = UUID.randomUUID().toString();
        Map<String, String> metadata = metadata(entry, writeId);
        String sentryKey = stem + SENTRY_SUFFIX + compression.suffix();
        String otlpKey = stem + OTLP_SUFFIX + compression.suffix();
        byte[] sentry = compression.compress(entry.sentryPayload());
        byte[] otlp = compression.compress(entry.otlpPayload());

        Attempts sentryAttempts = new Attempts();
        boolean sentryCreated = putIfAbsent(sentryKey, sentry, "application/json", metadata, writeId,
                deadline, sentryAttempts);
        Attempts otlpAttempts = new Attempts();
        boolean otlpCreated;
        try {
            otlpCreated = putIfAbsent(otlpKey, otlp, "application/x-protobuf", metadata, writeId,
                    deadline, otlpAttempts);
        } catch (ArchiveUnavailableException e) {
            if (sentryCreated && !otlpAttempts.mayHaveWritten) {
                deleteQuietly(sentryKey);
            }
            throw e;
        }
        if (otlpCreated && !sentryCreated) {
            // The Sentry object existed before this call: another archiver whose OTLP write then failed may
            // have deleted it since. Put it back so that the completed chunk has both objects.
            putIfAbsent(sentryKey, sentry, "application/json", metadata, writeId, deadline, new Attempts());
        }
        recentlyArchived.put(stem, Boolean.TRUE);
        return otlpCreated ? ArchiveResult.STORED : ArchiveResult.DUPLICATE;
    }

    /**
     * Archives the Sentry form of a chunk alone, for a relay that derives the OTLP form later
     * ({@link #storeDerivedOtlp}): the chunk is safe once this returns. {@link ArchiveResult#DUPLICATE} when the
     * Sentry object already existed.
     *
     * @param metadata as {@link ArchiveEntry#metadata()}
     * @throws ArchiveUnavailableException when the bucket could not be written within the deadline
     */
    public ArchiveResult archiveSentryForm(ArchiveKey key, byte[] sentryPayload, Map<String, String> metadata) {
        String stem = settings.prefix() + key.stem();
        if (recentlyArchived.getIfPresent(stem) != null) {
            return ArchiveResult.DUPLICATE;
        }
        Deadline deadline = new Deadline(settings.deadline());
        ensureBucket(deadline);
        String writeId = UUID.randomUUID().toString();
        boolean created = putIfAbsent(stem + SENTRY_SUFFIX + settings.compression().suffix(),
                settings.compression().compress(sentryPayload), "application/json",
                metadata(key, metadata, writeId), writeId, deadline, new Attempts());
        recentlyArchived.put(stem, Boolean.TRUE);
        return created ? ArchiveResult.STORED : ArchiveResult.DUPLICATE;
    }

    /**
     * Writes the OTLP form derived from an archived Sentry form, once: {@link ArchiveResult#DUPLICATE} when it
     * exists already (another replica or an earlier attempt derived it), so that only one writer forwards it.
     *
     * @throws ArchiveUnavailableException when the bucket could not be written within the deadline
     */
    public ArchiveResult storeDerivedOtlp(ArchiveKey key, byte[] otlpPayload, Map<String, String> metadata) {
        return storeCompressedDerivedOtlp(key, compress(otlpPayload), metadata);
    }

    /**
     * As {@link #storeDerivedOtlp}, with the payload already as this archive stores it ({@link #compress}), for a
     * caller that kept it so.
     */
    public ArchiveResult storeCompressedDerivedOtlp(ArchiveKey key, byte[] storedOtlp, Map<String, String> metadata) {
        Deadline deadline = new Deadline(settings.deadline());
        ensureBucket(deadline);
        String writeId = UUID.randomUUID().toString();
        boolean created = putIfAbsent(settings.prefix() + key.stem() + OTLP_SUFFIX + settings.compression().suffix(),
                storedOtlp, "application/x-protobuf", metadata(key, metadata, writeId), writeId, deadline,
                new Attempts());
        return created ? ArchiveResult.STORED : ArchiveResult.DUPLICATE;
    }

    /** A payload as this archive stores it: compressed as configured, deterministically. */
    public byte[] compress(byte[] payload) {
        return settings.compression().compress(payload);
    }

    /** A payload stored by this archive ({@link #compress}), as it was. */
    public byte[] decompress(byte[] stored) {
        return settings.compression().decompress(stored);
    }

    /** The decompressed Sentry form of a chunk by its key, empty when it is not archived. */
    public Optional<byte[]> readSentry(ArchiveKey key) {
        String stem = settings.prefix() + key.stem() + SENTRY_SUFFIX;
        for (ArchiveCompression compression : ArchiveCompression.values()) {
            String full = stem + compression.suffix();
            Optional<byte[]> stored = withRetries("read " + full, new Deadline(settings.deadline()), new Attempts(),
                    timeout -> {
                        try {
                            return Optional.of(s3.getObjectAsBytes(b -> b.bucket(settings.bucket()).key(full)
                                    .overrideConfiguration(o -> o.apiCallTimeout(timeout))).asByteArray());
                        } catch (NoSuchKeyException e) {
                            return Optional.<byte[]>empty();
                        }
                    });
            if (stored.isPresent()) {
                return Optional.of(compression.decompress(stored.get()));
            }
        }
        return Optional.empty();
    }

    /**
     * Chunks of a project and day whose Sentry form is archived and whose OTLP form is not (yet) derived, with when
     * their Sentry object was written.
     */
    public List<UnderivedChunk> listUnderived(String projectId, LocalDate day) {
        ArchiveKey.checkPart("project id", projectId);
        List<UnderivedChunk> underived = new ArrayList<>();
        for (Map.Entry<String, ChunkObjects> e : listStems(projectId, day).entrySet()) {
            ChunkObjects objects = e.getValue();
            if (objects.otlp == null && objects.sentry != null) {
                String[] parts = e.getKey().split("/", 2);
                underived.add(new UnderivedChunk(new ArchiveKey(projectId, day, parts[0], parts[1]),
                        objects.sentryWrittenAt));
            }
        }
        return underived;
    }

    /** The days that hold chunks of a project (its day folders), oldest first. */
    public List<LocalDate> listDays(String projectId) {
        ArchiveKey.checkPart("project id", projectId);
        List<LocalDate> days = new ArrayList<>();
        for (String folder : listFolders(projectId + "/")) {
            try {
                days.add(LocalDate.parse(folder));
            } catch (java.time.format.DateTimeParseException notADay) {
                LOG.debug("not a day folder under project {}: {}", projectId, folder);
            }
        }
        return days;
    }

    /** The project ids that have objects in the archive (the top-level folders that are numbers). */
    public List<String> listProjects() {
        return listFolders("").stream().filter(name -> name.matches("[0-9]{1,20}")).toList();
    }

    /**
     * Keeps a payload the relay failed on (a bug, not a bad input) so that it can be processed again once fixed:
     * {@code {prefix}quarantine/{project}/{yyyy-mm-dd of today, UTC}/{chunk id or "unknown"}-{random}.sentry.json.zst},
     * with the failure in the metadata {@code reason}. Returns the key.
     *
     * @throws ArchiveUnavailableException when storage fails within the deadline
     */
    public String quarantine(String projectId, String chunkId, byte[] payload, String reason) {
        ArchiveKey.checkPart("project id", projectId);
        String name = chunkId != null && chunkId.matches("[0-9a-f]{32}") ? chunkId : "unknown";
        String key = settings.prefix() + QUARANTINE_PREFIX + projectId + "/" + LocalDate.now(ZoneOffset.UTC) + "/"
                + name + "-" + UUID.randomUUID() + SENTRY_SUFFIX + settings.compression().suffix();
        Deadline deadline = new Deadline(settings.deadline());
        ensureBucket(deadline);
        byte[] body = settings.compression().compress(payload);
        Map<String, String> metadata = Map.of("reason", headerSafe(reason), ArchiveEntry.PROJECT, projectId);
        withRetries("store " + key, deadline, new Attempts(), timeout ->
                s3.putObject(b -> b.bucket(settings.bucket()).key(key).contentType("application/json")
                                .contentEncoding(settings.compression().encoding()).metadata(metadata)
                                .overrideConfiguration(o -> o.apiCallTimeout(timeout)),
                        RequestBody.fromBytes(body)));
        return key;
    }

    /**
     * Stores an object of the relay's own beside the chunks (a spooled envelope, say) under {@code {prefix}{key}},
     * uncompressed, replacing any object of that key.
     *
     * @throws ArchiveUnavailableException when storage fails within the deadline
     */
    public void storeObject(String key, byte[] body) {
        Deadline deadline = new Deadline(settings.deadline());
        ensureBucket(deadline);
        String full = settings.prefix() + key;
        withRetries("store " + full, deadline, new Attempts(), timeout ->
                s3.putObject(b -> b.bucket(settings.bucket()).key(full).contentType("application/octet-stream")
                        .overrideConfiguration(o -> o.apiCallTimeout(timeout)), RequestBody.fromBytes(body)));
    }

    /** The keys (without the archive prefix) of the objects under {@code {prefix}{keyPrefix}}, in key order. */
    public List<String> listObjects(String keyPrefix) {
        return new ArrayList<>(listObjectsWrittenAt(keyPrefix).keySet());
    }

    /** As {@link #listObjects}, with when each object was written (its {@code LastModified}). */
    public Map<String, Instant> listObjectsWrittenAt(String keyPrefix) {
        Deadline deadline = new Deadline(settings.deadline());
        ensureBucket(deadline);
        String full = settings.prefix() + keyPrefix;
        Map<String, Instant> written = new LinkedHashMap<>();
        String continuation = null;
        do {
            String token = continuation;
            ListObjectsV2Response page = withRetries("list " + full, deadline, new Attempts(),
                    timeout -> s3.listObjectsV2(b -> b.bucket(settings.bucket()).prefix(full)
                            .continuationToken(token).overrideConfiguration(o -> o.apiCallTimeout(timeout))));
            for (S3Object object : page.contents()) {
                written.put(object.key().substring(settings.prefix().length()), object.lastModified());
            }
            continuation = Boolean.TRUE.equals(page.isTruncated()) ? page.nextContinuationToken() : null;
        } while (continuation != null);
        return written;
    }

    /**
     * Stores an object of the relay's own under {@code {prefix}{key}} only when no object has that key
     * ({@code If-None-Match: *}): of concurrent callers, on any relay, exactly one gets true. For claims and leases.
     *
     * @throws ArchiveUnavailableException when storage fails within the deadline
     */
    public boolean storeObjectIfAbsent(String key, byte[] body) {
        Deadline deadline = new Deadline(settings.deadline());
        ensureBucket(deadline);
        String full = settings.prefix() + key;
        String writeId = UUID.randomUUID().toString();
        Attempts attempts = new Attempts();
        return withRetries("store " + full, deadline, attempts, timeout -> {
            try {
                s3.putObject(b -> b.bucket(settings.bucket()).key(full).ifNoneMatch("*")
                                .contentType("application/octet-stream").metadata(Map.of(WRITE_ID, writeId))
                                .overrideConfiguration(o -> o.apiCallTimeout(timeout)),
                        RequestBody.fromBytes(body));
                return true;
            } catch (S3Exception e) {
                if (e.statusCode() != 412) {
                    throw e;
                }
                // after a failed attempt of ours the object may be our own
                return attempts.failures > 0
                        && head(full, timeout).map(h -> writeId.equals(h.metadata().get(WRITE_ID))).orElse(false);
            }
        });
    }

    /**
     * The names one level below {@code {prefix}{keyPrefix}}: each key's part up to its next {@code /}, once, in
     * key order (the projects of the archive, for {@code keyPrefix} empty).
     */
    public List<String> listFolders(String keyPrefix) {
        Deadline deadline = new Deadline(settings.deadline());
        ensureBucket(deadline);
        String full = settings.prefix() + keyPrefix;
        List<String> folders = new ArrayList<>();
        String continuation = null;
        do {
            String token = continuation;
            ListObjectsV2Response page = withRetries("list " + full, deadline, new Attempts(),
                    timeout -> s3.listObjectsV2(b -> b.bucket(settings.bucket()).prefix(full).delimiter("/")
                            .continuationToken(token).overrideConfiguration(o -> o.apiCallTimeout(timeout))));
            for (CommonPrefix folder : page.commonPrefixes()) {
                String name = folder.prefix().substring(full.length());
                folders.add(name.substring(0, name.length() - 1));
            }
            continuation = Boolean.TRUE.equals(page.isTruncated()) ? page.nextContinuationToken() : null;
        } while (continuation != null);
        return folders;
    }

    /** An object stored with {@link #storeObject}; empty when it is gone. */
    public Optional<byte[]> readObject(String key) {
        String full = settings.prefix() + key;
        return withRetries("read " + full, new Deadline(settings.deadline()), new Attempts(), timeout -> {
            try {
                return Optional.of(s3.getObjectAsBytes(b -> b.bucket(settings.bucket()).key(full)
                        .overrideConfiguration(o -> o.apiCallTimeout(timeout))).asByteArray());
            } catch (NoSuchKeyException e) {
                return Optional.empty();
            }
        });
    }

    /** Removes an object stored with {@link #storeObject}; a missing one is no error. */
    public void deleteObject(String key) {
        String full = settings.prefix() + key;
        withRetries("delete " + full, new Deadline(settings.deadline()), new Attempts(), timeout ->
                s3.deleteObject(b -> b.bucket(settings.bucket()).key(full)
                        .overrideConfiguration(o -> o.apiCallTimeout(timeout))));
    }

    /**
     * The archived chunks of a project whose day lies in {@code [from, to]}, in key order, with their markers.
     */
    public List<ArchivedChunk> list(String projectId, LocalDate from, LocalDate to) {
        ArchiveKey.checkPart("project id", projectId);
        List<ArchivedChunk> chunks = new ArrayList<>();
        for (LocalDate day = from; !day.isAfter(to); day = day.plusDays(1)) {
            listDay(projectId, day, chunks);
        }
        return chunks;
    }

    /** The decompressed OTLP form ({@code ExportProfilesServiceRequest} bytes) of an archived chunk. */
    public byte[] readOtlp(ArchivedChunk chunk) {
        return read(chunk.otlpObjectKey());
    }

    /** The user metadata of an archived chunk's OTLP object (platform, release, sample count, ...), by name. */
    public Map<String, String> metadata(ArchivedChunk chunk) {
        return withRetries("check " + chunk.otlpObjectKey(), new Deadline(settings.deadline()), new Attempts(),
                timeout -> head(chunk.otlpObjectKey(), timeout).map(HeadObjectResponse::metadata).orElse(Map.of()));
    }

    /** The user metadata of a chunk's Sentry object, by name; empty when it is not archived. */
    public Map<String, String> sentryMetadata(ArchiveKey key) {
        String stem = settings.prefix() + key.stem() + SENTRY_SUFFIX;
        for (ArchiveCompression compression : ArchiveCompression.values()) {
            String full = stem + compression.suffix();
            Optional<HeadObjectResponse> head = withRetries("check " + full, new Deadline(settings.deadline()),
                    new Attempts(), timeout -> head(full, timeout));
            if (head.isPresent()) {
                return head.get().metadata();
            }
        }
        return Map.of();
    }

    /** The decompressed Sentry form (the SDK's payload) of an archived chunk. */
    public byte[] readSentry(ArchivedChunk chunk) {
        if (chunk.sentryObjectKey() == null) {
            throw new IllegalArgumentException("the Sentry object of " + chunk.key().stem() + " is missing");
        }
        return read(chunk.sentryObjectKey());
    }

    /** Records that the chunk's OTLP form reached the forwarding target; drops its replay marker. */
    public void markDelivered(ArchiveKey key) {
        String stem = settings.prefix() + key.stem();
        putMarker(stem + DELIVERED_SUFFIX, Instant.now().toString());
        deleteQuietly(stem + REPLAY_SUFFIX);
    }

    /** Records that forwarding of the chunk was skipped or failed, so that replay picks it up. */
    public void markForReplay(ArchiveKey key, String reason) {
        putMarker(settings.prefix() + key.stem() + REPLAY_SUFFIX, Instant.now() + " " + reason);
    }

    public boolean isDelivered(ArchiveKey key) {
        return exists(settings.prefix() + key.stem() + DELIVERED_SUFFIX);
    }

    public boolean isMarkedForReplay(ArchiveKey key) {
        return exists(settings.prefix() + key.stem() + REPLAY_SUFFIX);
    }

    /**
     * Whether the archive can take writes now: one HeadBucket (or, before the first write, the bucket check
     * and creation) limited to the probe timeout, no retries. For readiness.
     */
    public boolean reachable() {
        Duration timeout = settings.probeTimeout();
        try {
            if (bucketReady) {
                s3.headBucket(b -> b.bucket(settings.bucket()).overrideConfiguration(o -> o.apiCallTimeout(timeout)));
            } else {
                checkOrCreateBucket(timeout);
                bucketReady = true;
            }
            return true;
        } catch (SdkException e) {
            LOG.debug("archive {} not reachable: {}", settings.describeTarget(), e.toString());
            return false;
        }
    }

    @Override
    public void close() {
        s3.close();
        if (credentials instanceof AutoCloseable closeable) {
            try {
                closeable.close();
            } catch (Exception e) {
                LOG.debug("closing the credentials provider failed: {}", e.toString());
            }
        }
    }

    private boolean putIfAbsent(String key, byte[] body, String contentType, Map<String, String> metadata,
                                String writeId, Deadline deadline, Attempts attempts) {
        return withRetries("store " + key, deadline, attempts, timeout -> {
            try {
                s3.putObject(b -> b.bucket(settings.bucket()).key(key).ifNoneMatch("*")
                                .contentType(contentType).contentEncoding(settings.compression().encoding())
                                .metadata(metadata).overrideConfiguration(o -> o.apiCallTimeout(timeout)),
                        RequestBody.fromBytes(body));
                return true;
            } catch (S3Exception e) {
                if (e.statusCode() != 412) {
                    throw e;
                }
                if (attempts.failures == 0) {
                    return false;
                }
                // An earlier attempt of ours failed and may have landed: the object is ours if it carries our id.
                return head(key, timeout).map(h -> writeId.equals(h.metadata().get(WRITE_ID))).orElse(false);
            }
        });
    }

    private void ensureBucket(Deadline deadline) {
        if (bucketReady) {
            return;
        }
        withRetries("check bucket " + settings.bucket(), deadline, new Attempts(), timeout -> {
            checkOrCreateBucket(timeout);
            return Boolean.TRUE;
        });
        bucketReady = true;
    }

    private void checkOrCreateBucket(Duration timeout) {
        try {
            s3.headBucket(b -> b.bucket(settings.bucket()).overrideConfiguration(o -> o.apiCallTimeout(timeout)));
        } catch (S3Exception e) {
            if (e.statusCode() != 404 || !settings.createBucketIfMissing()) {
                throw e;
            }
            try {
                s3.createBucket(b -> b.bucket(settings.bucket()).overrideConfiguration(o -> o.apiCallTimeout(timeout)));
                LOG.info("created archive bucket {}", settings.bucket());
            } catch (BucketAlreadyOwnedByYouException concurrentlyCreated) {
                LOG.debug("archive bucket {} created concurrently", settings.bucket());
            }
        }
    }

    private void listDay(String projectId, LocalDate day, List<ArchivedChunk> into) {
        for (Map.Entry<String, ChunkObjects> e : listStems(projectId, day).entrySet()) {
            ChunkObjects objects = e.getValue();
            if (objects.otlp == null) {
                continue;
            }
            String[] parts = e.getKey().split("/", 2);
            into.add(new ArchivedChunk(new ArchiveKey(projectId, day, parts[0], parts[1]), objects.otlp,
                    objects.sentry, objects.delivered, objects.replay));
        }
    }

    /** The objects of one project and day, by stem ({@code {profiler}/{chunk}} below the day). */
    private Map<String, ChunkObjects> listStems(String projectId, LocalDate day) {
        String dayPrefix = settings.prefix() + projectId + "/" + day + "/";
        Map<String, ChunkObjects> byStem = new LinkedHashMap<>();
        String continuation = null;
        do {
            String token = continuation;
            ListObjectsV2Response page = withRetries("list " + dayPrefix, new Deadline(settings.deadline()),
                    new Attempts(), timeout -> s3.listObjectsV2(b -> b.bucket(settings.bucket()).prefix(dayPrefix)
                            .continuationToken(token).overrideConfiguration(o -> o.apiCallTimeout(timeout))));
            for (S3Object object : page.contents()) {
                collect(object, dayPrefix.length(), byStem);
            }
            continuation = Boolean.TRUE.equals(page.isTruncated()) ? page.nextContinuationToken() : null;
        } while (continuation != null);
        return byStem;
    }

    /** Files an object under its stem by its suffix. */
    private static void collect(S3Object object, int dayPrefixLength, Map<String, ChunkObjects> byStem) {
        String key = object.key();
        String rest = key.substring(dayPrefixLength);
        for (ArchiveCompression c : ArchiveCompression.values()) {
            if (rest.endsWith(OTLP_SUFFIX + c.suffix())) {
                objects(byStem, rest, OTLP_SUFFIX + c.suffix()).otlp = key;
                return;
            }
            if (rest.endsWith(SENTRY_SUFFIX + c.suffix())) {
                ChunkObjects objects = objects(byStem, rest, SENTRY_SUFFIX + c.suffix());
                objects.sentry = key;
                objects.sentryWrittenAt = object.lastModified();
                return;
            }
        }
        if (rest.endsWith(DELIVERED_SUFFIX)) {
            objects(byStem, rest, DELIVERED_SUFFIX).delivered = true;
        } else if (rest.endsWith(REPLAY_SUFFIX)) {
            objects(byStem, rest, REPLAY_SUFFIX).replay = true;
        }
    }

    private static ChunkObjects objects(Map<String, ChunkObjects> byStem, String rest, String suffix) {
        String stem = rest.substring(0, rest.length() - suffix.length());
        return byStem.computeIfAbsent(stem, s -> new ChunkObjects());
    }

    private byte[] read(String key) {
        byte[] compressed = withRetries("read " + key, new Deadline(settings.deadline()), new Attempts(),
                timeout -> s3.getObjectAsBytes(b -> b.bucket(settings.bucket()).key(key)
                        .overrideConfiguration(o -> o.apiCallTimeout(timeout))).asByteArray());
        return ArchiveCompression.fromSuffix(key).decompress(compressed);
    }

    private void putMarker(String key, String body) {
        withRetries("store " + key, new Deadline(settings.deadline()), new Attempts(), timeout ->
                s3.putObject(b -> b.bucket(settings.bucket()).key(key).contentType("text/plain; charset=utf-8")
                                .overrideConfiguration(o -> o.apiCallTimeout(timeout)),
                        RequestBody.fromString(body, StandardCharsets.UTF_8)));
    }

    private boolean exists(String key) {
        return withRetries("check " + key, new Deadline(settings.deadline()), new Attempts(),
                timeout -> head(key, timeout).isPresent());
    }

    private Optional<HeadObjectResponse> head(String key, Duration timeout) {
        try {
            return Optional.of(s3.headObject(b -> b.bucket(settings.bucket()).key(key)
                    .overrideConfiguration(o -> o.apiCallTimeout(timeout))));
        } catch (S3Exception e) {
            if (e.statusCode() == 404) {
                return Optional.empty();
            }
            throw e;
        }
    }

    private void deleteQuietly(String key) {
        try {
            s3.deleteObject(b -> b.bucket(settings.bucket()).key(key)
                    .overrideConfiguration(o -> o.apiCallTimeout(settings.probeTimeout())));
        } catch (SdkException e) {
            LOG.warn("could not delete {} from the archive: {}", key, e.toString());
        }
    }

    private <T> T withRetries(String what, Deadline deadline, Attempts attempts, Function<Duration, T> request) {
        for (int attempt = 1; ; attempt++) {
            Duration remaining = deadline.remaining();
            if (remaining.isZero()) {
                throw unavailable(what, "deadline of " + settings.deadline().toMillis() + " ms passed",
                        attempts.last);
            }
            try {
                return request.apply(remaining);
            } catch (SdkException e) {
                attempts.record(e);
                if (!retryable(e)) {
                    throw unavailable(what, "refused", e);
                }
                if (attempt >= settings.retryAttempts()) {
                    throw unavailable(what, "failed " + attempt + " times", e);
                }
                Duration backoff = backoff(attempt);
                if (backoff.compareTo(deadline.remaining()) >= 0) {
                    throw unavailable(what, "no time left for another attempt within "
                            + settings.deadline().toMillis() + " ms", e);
                }
                LOG.debug("{} failed (attempt {}), retrying in {} ms: {}", what, attempt, backoff.toMillis(),
                        e.toString());
                sleep(backoff, what, e);
            }
        }
    }

    private Duration backoff(int attempt) {
        long base = settings.retryBackoff().toMillis() << Math.min(attempt - 1, 16);
        long capped = Math.min(base, MAX_BACKOFF.toMillis());
        return Duration.ofMillis(capped / 2 + ThreadLocalRandom.current().nextLong(capped / 2 + 1));
    }

    private void sleep(Duration backoff, String what, SdkException last) {
        try {
            Thread.sleep(backoff.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw unavailable(what, "interrupted", last);
        }
    }

    /** Connection failures, timeouts, throttling and server errors are worth another attempt; other 4xx are not. */
    private static boolean retryable(SdkException e) {
        if (e instanceof SdkClientException) {
            return true;
        }
        if (e instanceof SdkServiceException service) {
            int status = service.statusCode();
            return status >= 500 || status == 408 || status == 429
                    || (status == 409 && e instanceof S3Exception s3e && s3e.awsErrorDetails() != null
                    && "ConditionalRequestConflict".equals(s3e.awsErrorDetails().errorCode()));
        }
        return false;
    }

    private ArchiveUnavailableException unavailable(String what, String why, Throwable cause) {
        String message = "archive " + settings.describeTarget() + ": " + what + ": " + why
                + (cause == null ? "" : " (" + cause.getMessage() + ")");
        LOG.warn(message);
        return new ArchiveUnavailableException(message, cause);
    }

    private Map<String, String> metadata(ArchiveEntry entry, String writeId) {
        return metadata(entry.key(), entry.metadata(), writeId);
    }

    private Map<String, String> metadata(ArchiveKey key, Map<String, String> given, String writeId) {
        Map<String, String> metadata = new HashMap<>();
        given.forEach((name, value) -> metadata.put(name, headerSafe(value)));
        metadata.put(ArchiveEntry.PROJECT, key.projectId());
        metadata.put(ArchiveEntry.PROFILER_ID, key.profilerId());
        metadata.put(ArchiveEntry.CHUNK_ID, key.chunkId());
        metadata.put(WRITE_ID, writeId);
        return metadata;
    }

    /**
     * Metadata travels as HTTP headers: printable ASCII passes, anything else (and {@code %}) is
     * percent-encoded as UTF-8; values are capped so that all of them stay within S3's 2 KB.
     */
    static String headerSafe(String value) {
        StringBuilder s = new StringBuilder(Math.min(value.length(), MAX_METADATA_VALUE_LENGTH));
        for (byte b : value.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xff;
            boolean plain = c >= 0x20 && c < 0x7f && c != '%';
            if (s.length() + (plain ? 1 : 3) > MAX_METADATA_VALUE_LENGTH) {
                break;
            }
            if (plain) {
                s.append((char) c);
            } else {
                s.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 0xf, 16)));
            }
        }
        return s.toString();
    }

    private static S3Client client(ArchiveSettings settings, AwsCredentialsProvider credentials) {
        S3ClientBuilder builder = S3Client.builder()
                .httpClientBuilder(Apache5HttpClient.builder()
                        .maxConnections(64)
                        .connectionTimeout(min(settings.probeTimeout(), settings.deadline()))
                        .socketTimeout(settings.deadline()))
                .region(Region.of(settings.region()))
                .credentialsProvider(credentials)
                .forcePathStyle(settings.pathStyle())
                // no checksum trailer on writes and no CRC check on reads unless the operation requires one: the
                // archive's objects are written once, read back rarely, and the stores check what they need
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                // our own retries, so that we know when a 412 may answer a write of ours
                .overrideConfiguration(o -> o.retryStrategy(AwsRetryStrategy.doNotRetry()));
        if (settings.endpoint() != null) {
            builder.endpointOverride(settings.endpoint());
        }
        return builder.build();
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    /** What one logical request saw across its attempts. */
    private static final class Attempts {
        int failures;
        SdkException last;
        /** Some attempt failed in a way that does not rule out that the server applied it. */
        boolean mayHaveWritten;

        void record(SdkException e) {
            failures++;
            last = e;
            if (!(e instanceof SdkServiceException) && !causedBy(e, ConnectException.class)) {
                mayHaveWritten = true;
            }
        }

        private static boolean causedBy(Throwable e, Class<? extends Throwable> type) {
            for (Throwable t = e; t != null; t = t.getCause()) {
                if (type.isInstance(t)) {
                    return true;
                }
            }
            return false;
        }
    }

    /** The objects found under one stem. */
    private static final class ChunkObjects {
        String otlp;
        String sentry;
        Instant sentryWrittenAt;
        boolean delivered;
        boolean replay;
    }

    /** A point in time by which a call must be done. */
    private static final class Deadline {
        private final long endNanos;

        Deadline(Duration budget) {
            this.endNanos = System.nanoTime() + budget.toNanos();
        }

        Duration remaining() {
            return Duration.ofNanos(Math.max(0, endNanos - System.nanoTime()));
        }
    }
}
