package chunkrelay.envelope.archive;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.annotation.Nullable;

import java.net.URI;

/**
 * The archive bucket, {@code relay.storage.s3.*}. With neither {@code endpoint} nor {@code bucket} set the relay
 * archives into its embedded S3 server instead. Unset values take {@link chunkrelay.storage.ArchiveSettings}'s
 * defaults.
 */
@ConfigurationProperties("relay.storage.s3")
public record S3StorageConfig(@Nullable URI endpoint, @Nullable String region, @Nullable String bucket,
                              @Nullable String prefix, @Nullable Boolean pathStyle, @Nullable String accessKey,
                              @Nullable String secretKey, @Nullable Boolean createBucketIfMissing) {

    @Override
    public String toString() {
        return "S3StorageConfig[endpoint=" + endpoint + ", region=" + region + ", bucket=" + bucket + ", prefix="
                + prefix + ", pathStyle=" + pathStyle + ", accessKey=" + accessKey + "]";
    }
}
