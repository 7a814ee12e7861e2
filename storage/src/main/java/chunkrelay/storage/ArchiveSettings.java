package chunkrelay.storage;

import java.net.URI;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * How to reach the archive bucket. The first fields map 1:1 to the relay's configuration
 * ({@code relay.storage.s3.endpoint}, {@code .region}, {@code .bucket}, {@code .prefix}, {@code .path-style},
 * {@code .access-key}, {@code .secret-key}, {@code relay.storage.compression}); a {@code null} anywhere means
 * the default.
 *
 * @param endpoint              S3 endpoint for non-AWS stores (MinIO, R2, Ceph, the embedded S3Proxy); {@code null}
 *                              for AWS, resolved from the region
 * @param region                signing region, default {@code us-east-1}
 * @param bucket                bucket name, default {@code chunk-relay}
 * @param prefix                prepended verbatim to every key (use a trailing {@code /} for a folder), default empty
 * @param pathStyle             path-style addressing ({@code endpoint/bucket/key}), needed by MinIO and S3Proxy;
 *                              default {@code false}
 * @param accessKey             static access key; with {@code secretKey}, or neither for the default provider chain
 *                              (environment, system properties, profile, web identity, container, instance)
 * @param secretKey             static secret key
 * @param createBucketIfMissing create the bucket on first use when it does not exist, default {@code true}
 * @param compression           object compression, default {@link ArchiveCompression#ZSTD}
 * @param deadline              time budget of one archive (or marker/read) call, retries included, default 10 s
 * @param retryAttempts         attempts per S3 request inside the deadline, default 4
 * @param retryBackoff          backoff before the second attempt, doubled after each (with jitter), default 100 ms
 * @param probeTimeout          timeout of the {@link ChunkArchive#reachable()} probe, default 2 s
 * @param anonymous             send requests unsigned, with no credentials; for the embedded S3 server on loopback,
 *                              which checks no signatures (signing hashes every payload), default {@code false}
 */
public record ArchiveSettings(
        URI endpoint,
        String region,
        String bucket,
        String prefix,
        Boolean pathStyle,
        String accessKey,
        String secretKey,
        Boolean createBucketIfMissing,
        ArchiveCompression compression,
        Duration deadline,
        Integer retryAttempts,
        Duration retryBackoff,
        Duration probeTimeout,
        Boolean anonymous) {

    public static final String DEFAULT_REGION = "us-east-1";
    public static final String DEFAULT_BUCKET = "chunk-relay";

    public ArchiveSettings {
        region = blankToNull(region) == null ? DEFAULT_REGION : region.trim();
        bucket = blankToNull(bucket) == null ? DEFAULT_BUCKET : bucket.trim();
        prefix = prefix == null ? "" : prefix;
        pathStyle = pathStyle != null && pathStyle;
        accessKey = blankToNull(accessKey);
        secretKey = blankToNull(secretKey);
        createBucketIfMissing = createBucketIfMissing == null || createBucketIfMissing;
        compression = compression == null ? ArchiveCompression.ZSTD : compression;
        deadline = deadline == null ? Duration.ofSeconds(10) : deadline;
        retryAttempts = retryAttempts == null ? 4 : retryAttempts;
        retryBackoff = retryBackoff == null ? Duration.ofMillis(100) : retryBackoff;
        probeTimeout = probeTimeout == null ? Duration.ofSeconds(2) : probeTimeout;
        anonymous = anonymous != null && anonymous;
        if ((accessKey == null) != (secretKey == null)) {
            throw new IllegalArgumentException(
                    "relay.storage.s3.access-key and relay.storage.s3.secret-key go together: set both or neither");
        }
        if (prefix.startsWith("/")) {
            throw new IllegalArgumentException("relay.storage.s3.prefix must not start with '/': '" + prefix + "'");
        }
        if (deadline.isNegative() || deadline.isZero() || probeTimeout.isNegative() || probeTimeout.isZero()
                || retryBackoff.isNegative() || retryAttempts < 1) {
            throw new IllegalArgumentException("archive deadline, probe timeout and retry attempts must be positive");
        }
    }

    /** Every default: AWS S3 in us-east-1, bucket {@code chunk-relay}, default credentials chain, zstd. */
    public static ArchiveSettings defaults() {
        return new ArchiveSettings(null, null, null, null, null, null, null, null, null, null, null, null, null, null);
    }

    public ArchiveSettings withEndpoint(URI endpoint) {
        return changed(copy -> copy.endpoint = endpoint);
    }

    public ArchiveSettings withRegion(String region) {
        return changed(copy -> copy.region = region);
    }

    public ArchiveSettings withBucket(String bucket) {
        return changed(copy -> copy.bucket = bucket);
    }

    public ArchiveSettings withPrefix(String prefix) {
        return changed(copy -> copy.prefix = prefix);
    }

    public ArchiveSettings withPathStyle(boolean pathStyle) {
        return changed(copy -> copy.pathStyle = pathStyle);
    }

    public ArchiveSettings withCredentials(String accessKey, String secretKey) {
        return changed(copy -> {
            copy.accessKey = accessKey;
            copy.secretKey = secretKey;
        });
    }

    public ArchiveSettings withCreateBucketIfMissing(boolean create) {
        return changed(copy -> copy.createBucketIfMissing = create);
    }

    public ArchiveSettings withCompression(ArchiveCompression compression) {
        return changed(copy -> copy.compression = compression);
    }

    public ArchiveSettings withDeadline(Duration deadline) {
        return changed(copy -> copy.deadline = deadline);
    }

    public ArchiveSettings withRetry(int attempts, Duration backoff) {
        return changed(copy -> {
            copy.retryAttempts = attempts;
            copy.retryBackoff = backoff;
        });
    }

    public ArchiveSettings withProbeTimeout(Duration probeTimeout) {
        return changed(copy -> copy.probeTimeout = probeTimeout);
    }

    /** Requests unsigned and without credentials, for a store that checks no signatures. */
    public ArchiveSettings withAnonymousAccess() {
        return changed(copy -> {
            copy.accessKey = null;
            copy.secretKey = null;
            copy.anonymous = true;
        });
    }

    /** Where archive objects go, for a start-up summary, e.g. {@code s3://chunk-relay/archive/ at http://...}. */
    public String describeTarget() {
        return "s3://" + bucket + "/" + prefix + (endpoint == null ? " (AWS " + region + ")" : " at " + endpoint);
    }

    /** Every field but the secret key, which is shown as set or not. */
    @Override
    public String toString() {
        return "ArchiveSettings[endpoint=" + endpoint + ", region=" + region + ", bucket=" + bucket
                + ", prefix=" + prefix + ", pathStyle=" + pathStyle + ", accessKey=" + accessKey
                + ", secretKey=" + (secretKey == null ? "unset" : "***") + ", createBucketIfMissing="
                + createBucketIfMissing + ", compression=" + compression + ", deadline=" + deadline
                + ", retryAttempts=" + retryAttempts + ", retryBackoff=" + retryBackoff
                + ", probeTimeout=" + probeTimeout + "]";
    }

    /** These settings with what {@code change} sets, checked by the constructor as any settings are. */
    private ArchiveSettings changed(Consumer<Copy> change) {
        Copy copy = new Copy(this);
        change.accept(copy);
        return copy.settings();
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }

    /** The components as variables, so that each wither names only what it changes. */
    private static final class Copy {
        private URI endpoint;
        private String region;
        private String bucket;
        private String prefix;
        private Boolean pathStyle;
        private String accessKey;
        private String secretKey;
        private Boolean createBucketIfMissing;
        private ArchiveCompression compression;
        private Duration deadline;
        private Integer retryAttempts;
        private Duration retryBackoff;
        private Duration probeTimeout;
        private Boolean anonymous;

        private Copy(ArchiveSettings settings) {
            endpoint = settings.endpoint;
            region = settings.region;
            bucket = settings.bucket;
            prefix = settings.prefix;
            pathStyle = settings.pathStyle;
            accessKey = settings.accessKey;
            secretKey = settings.secretKey;
            createBucketIfMissing = settings.createBucketIfMissing;
            compression = settings.compression;
            deadline = settings.deadline;
            retryAttempts = settings.retryAttempts;
            retryBackoff = settings.retryBackoff;
            probeTimeout = settings.probeTimeout;
            anonymous = settings.anonymous;
        }

        private ArchiveSettings settings() {
            return new ArchiveSettings(endpoint, region, bucket, prefix, pathStyle, accessKey, secretKey,
                    createBucketIfMissing, compression, deadline, retryAttempts, retryBackoff, probeTimeout, anonymous);
        }
    }
}
