package chunkrelay.storage;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.auth.credentials.AnonymousCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.BucketAlreadyOwnedByYouException;
import software.amazon.awssdk.services.s3.model.CommonPrefix;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * The relay's bucket: objects under the configured key prefix, every request retried within a deadline
 * ({@link StoreRequests}), conditional writes ({@code If-None-Match: *}) that tell exactly one of concurrent writers,
 * on any relay, that it created the object, and listings. The bucket is checked (and created, if allowed) before the
 * first write. One implementation over either client: the AWS SDK over HTTP, or {@link InProcessS3Client} for the
 * embedded server. Keys given to it are below the prefix. Thread-safe; one instance per bucket.
 */
public final class ObjectStore implements AutoCloseable {
    /** User metadata naming the write that created an object, to settle ambiguous 412s. */
    static final String WRITE_ID = "write-id";
    private static final String OCTET_STREAM = "application/octet-stream";
    private static final Logger LOG = LoggerFactory.getLogger(ObjectStore.class);

    private final ArchiveSettings settings;
    private final AwsCredentialsProvider credentials;
    private final S3Client s3;
    private final StoreRequests requests;
    private final Clock clock;
    private volatile boolean bucketReady;

    private ObjectStore(ArchiveSettings settings, AwsCredentialsProvider credentials, S3Client s3, Clock clock) {
        this.settings = settings;
        this.credentials = credentials;
        this.s3 = s3;
        this.requests = new StoreRequests(settings, clock);
        this.clock = clock;
    }

    /** The configured bucket, reached with the AWS SDK over HTTP, with deadlines and waits on {@code clock}. */
    public static ObjectStore overHttp(ArchiveSettings settings, Clock clock) {
        AwsCredentialsProvider credentials = S3Clients.credentials(settings);
        return new ObjectStore(settings, credentials, S3Clients.overHttp(settings, credentials), clock);
    }

    /**
     * An embedded server's bucket, reached in this process: the same S3 requests and answers as over the server's
     * HTTP endpoint (which keeps serving the objects to everyone else), without the exchange. For the relay's
     * default store, where the HTTP exchange cost more CPU than the chunk it carried.
     */
    public static ObjectStore inProcess(EmbeddedS3Server server, ArchiveSettings settings, Clock clock) {
        ArchiveSettings applied = server.applyTo(settings);
        return new ObjectStore(applied, AnonymousCredentialsProvider.create(), server.inProcessClient(), clock);
    }

    public ArchiveSettings settings() {
        return settings;
    }

    /** The clock of this store's deadlines, which is also the one what is stored in it is dated by. */
    public Clock clock() {
        return clock;
    }

    /**
     * Stores an object of the relay's own (a spooled envelope, say) under {@code key}, uncompressed, replacing any
     * object of that key.
     *
     * @throws ArchiveUnavailableException when storage fails within the deadline
     */
    public void storeObject(String key, byte[] body) {
        put(key, body, new ObjectHeaders(OCTET_STREAM, null, Map.of()), requests.deadline());
    }

    /**
     * Stores an object of the relay's own under {@code key} only when no object has that key: of concurrent
     * callers, on any relay, exactly one gets true. For claims and leases.
     *
     * @throws ArchiveUnavailableException when storage fails within the deadline
     */
    public boolean storeObjectIfAbsent(String key, byte[] body) {
        return putIfAbsent(key, body, new ObjectHeaders(OCTET_STREAM, null, Map.of()), requests.deadline());
    }

    /** An object's bytes as stored; empty when there is none (nor, yet, a bucket: it is created as for a listing). */
    public Optional<byte[]> readObject(String key) {
        ensureBucket(requests.deadline());
        String full = settings.prefix() + key;
        return requests.run("read " + full, timeout -> {
            try {
                return Optional.of(s3.getObjectAsBytes(b -> b.bucket(settings.bucket()).key(full)
                        .overrideConfiguration(o -> o.apiCallTimeout(timeout))).asByteArray());
            } catch (NoSuchKeyException e) {
                return Optional.empty();
            }
        });
    }

    /** Removes an object; a missing one is no error. */
    public void deleteObject(String key) {
        String full = settings.prefix() + key;
        requests.run("delete " + full, timeout -> s3.deleteObject(b -> b.bucket(settings.bucket()).key(full)
                .overrideConfiguration(o -> o.apiCallTimeout(timeout))));
    }

    /** The keys of the objects under {@code keyPrefix}, in key order. */
    public List<String> listObjects(String keyPrefix) {
        return new ArrayList<>(listObjectsWrittenAt(keyPrefix).keySet());
    }

    /** As {@link #listObjects}, with when each object was written (its {@code LastModified}). */
    public Map<String, Instant> listObjectsWrittenAt(String keyPrefix) {
        Deadline deadline = requests.deadline();
        ensureBucket(deadline);
        Map<String, Instant> written = new LinkedHashMap<>();
        for (ListObjectsV2Response page : listPages(keyPrefix, null, deadline)) {
            for (S3Object object : page.contents()) {
                written.put(object.key().substring(settings.prefix().length()), object.lastModified());
            }
        }
        return written;
    }

    /**
     * The names one level below {@code keyPrefix}: each key's part up to its next {@code /}, once, in key order
     * (the projects of the archive, for {@code keyPrefix} empty).
     */
    public List<String> listFolders(String keyPrefix) {
        Deadline deadline = requests.deadline();
        ensureBucket(deadline);
        int below = settings.prefix().length() + keyPrefix.length();
        List<String> folders = new ArrayList<>();
        for (ListObjectsV2Response page : listPages(keyPrefix, "/", deadline)) {
            for (CommonPrefix folder : page.commonPrefixes()) {
                folders.add(folder.prefix().substring(below, folder.prefix().length() - 1));
            }
        }
        return folders;
    }

    /**
     * Whether the bucket can take writes now: one HeadBucket (or, before the first write, the bucket check and
     * creation) limited to the probe timeout, no retries. For readiness.
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

    /** The key of {@code key} in the bucket, prefix included, as listings and S3 tools show it. */
    String bucketKey(String key) {
        return settings.prefix() + key;
    }

    /** The key below the prefix of an object's key in the bucket. */
    String keyOf(String bucketKey) {
        return bucketKey.substring(settings.prefix().length());
    }

    StoreRequests requests() {
        return requests;
    }

    /** Stores an object, replacing any of that key. */
    void put(String key, byte[] body, ObjectHeaders headers, Deadline deadline) {
        ensureBucket(deadline);
        String full = settings.prefix() + key;
        requests.run("store " + full, deadline, new StoreRequests.Attempts(), timeout ->
                s3.putObject(b -> b.bucket(settings.bucket()).key(full).contentType(headers.contentType())
                                .contentEncoding(headers.contentEncoding()).metadata(headers.metadata())
                                .overrideConfiguration(o -> o.apiCallTimeout(timeout)),
                        RequestBody.fromBytes(body)));
    }

    /**
     * Stores an object only when none has its key ({@code If-None-Match: *}); true when this call created it. A 412
     * after a failed attempt of this call is settled with a HEAD: the object is ours if it carries our write id.
     *
     * @throws ArchiveUnavailableException when it fails within the deadline, saying whether it may have landed
     */
    boolean putIfAbsent(String key, byte[] body, ObjectHeaders headers, Deadline deadline) {
        ensureBucket(deadline);
        String full = settings.prefix() + key;
        String writeId = UUID.randomUUID().toString();
        Map<String, String> metadata = new HashMap<>(headers.metadata());
        metadata.put(WRITE_ID, writeId);
        StoreRequests.Attempts attempts = new StoreRequests.Attempts();
        return requests.run("store " + full, deadline, attempts, timeout -> {
            try {
                s3.putObject(b -> b.bucket(settings.bucket()).key(full).ifNoneMatch("*")
                                .contentType(headers.contentType()).contentEncoding(headers.contentEncoding())
                                .metadata(metadata).overrideConfiguration(o -> o.apiCallTimeout(timeout)),
                        RequestBody.fromBytes(body));
                return true;
            } catch (S3Exception e) {
                if (e.statusCode() != 412) {
                    throw e;
                }
                return attempts.failures > 0
                        && head(full, timeout).map(h -> writeId.equals(h.metadata().get(WRITE_ID))).orElse(false);
            }
        });
    }

    /** An object's bytes, which must exist. */
    byte[] read(String key) {
        String full = settings.prefix() + key;
        return requests.run("read " + full, timeout -> s3.getObjectAsBytes(b -> b.bucket(settings.bucket())
                .key(full).overrideConfiguration(o -> o.apiCallTimeout(timeout))).asByteArray());
    }

    /** An object's bytes as stored and its user metadata, in one request; empty when there is none. */
    Optional<StoredObject> readWithMetadata(String key) {
        String full = settings.prefix() + key;
        return requests.run("read " + full, timeout -> {
            try {
                var response = s3.getObjectAsBytes(b -> b.bucket(settings.bucket()).key(full)
                        .overrideConfiguration(o -> o.apiCallTimeout(timeout)));
                return Optional.of(new StoredObject(response.asByteArray(), response.response().metadata()));
            } catch (NoSuchKeyException e) {
                return Optional.empty();
            }
        });
    }

    /** An object's bytes as stored, with its user metadata by name. */
    record StoredObject(byte[] body, Map<String, String> metadata) {
    }

    /** An object's user metadata; empty when there is no such object. */
    Optional<Map<String, String>> metadata(String key) {
        String full = settings.prefix() + key;
        return requests.run("check " + full, timeout -> head(full, timeout).map(HeadObjectResponse::metadata));
    }

    /** Every object under {@code keyPrefix} with its key in the bucket and when it was written, in key order. */
    List<S3Object> list(String keyPrefix) {
        List<S3Object> objects = new ArrayList<>();
        for (ListObjectsV2Response page : listPages(keyPrefix, null, requests.deadline())) {
            objects.addAll(page.contents());
        }
        return objects;
    }

    /** Removes an object with one attempt, logging a failure: for clean-up whose failure leaves nothing wrong. */
    void deleteQuietly(String key) {
        String full = settings.prefix() + key;
        try {
            s3.deleteObject(b -> b.bucket(settings.bucket()).key(full)
                    .overrideConfiguration(o -> o.apiCallTimeout(settings.probeTimeout())));
        } catch (SdkException e) {
            LOG.warn("could not delete {} from the archive: {}", full, e.toString());
        }
    }

    private List<ListObjectsV2Response> listPages(String keyPrefix, String delimiter, Deadline deadline) {
        String full = settings.prefix() + keyPrefix;
        List<ListObjectsV2Response> pages = new ArrayList<>();
        String continuation = null;
        do {
            String token = continuation;
            ListObjectsV2Response page = requests.run("list " + full, deadline, new StoreRequests.Attempts(),
                    timeout -> s3.listObjectsV2(b -> b.bucket(settings.bucket()).prefix(full).delimiter(delimiter)
                            .continuationToken(token).overrideConfiguration(o -> o.apiCallTimeout(timeout))));
            pages.add(page);
            continuation = Boolean.TRUE.equals(page.isTruncated()) ? page.nextContinuationToken() : null;
        } while (continuation != null);
        return pages;
    }

    private Optional<HeadObjectResponse> head(String fullKey, Duration timeout) {
        try {
            return Optional.of(s3.headObject(b -> b.bucket(settings.bucket()).key(fullKey)
                    .overrideConfiguration(o -> o.apiCallTimeout(timeout))));
        } catch (S3Exception e) {
            if (e.statusCode() == 404) {
                return Optional.empty();
            }
            throw e;
        }
    }

    private void ensureBucket(Deadline deadline) {
        if (bucketReady) {
            return;
        }
        requests.run("check bucket " + settings.bucket(), deadline, new StoreRequests.Attempts(), timeout -> {
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
}
