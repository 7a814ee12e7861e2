package chunkrelay.storage;

import software.amazon.awssdk.auth.credentials.AnonymousCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;

import java.time.Duration;

/** The AWS SDK client of a bucket reached over HTTP, as the store needs it, and its credentials. */
final class S3Clients {
    private S3Clients() {
    }

    static AwsCredentialsProvider credentials(ArchiveSettings settings) {
        return settings.anonymous() ? AnonymousCredentialsProvider.create()
                : settings.accessKey() != null
                ? StaticCredentialsProvider.create(AwsBasicCredentials.create(settings.accessKey(), settings.secretKey()))
                : DefaultCredentialsProvider.builder().build();
    }

    static S3Client overHttp(ArchiveSettings settings, AwsCredentialsProvider credentials) {
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
                // the store's own retries, so that it knows when a 412 may answer a write of its own
                .overrideConfiguration(o -> o.retryStrategy(AwsRetryStrategy.doNotRetry()));
        if (settings.endpoint() != null) {
            builder.endpointOverride(settings.endpoint());
        }
        return builder.build();
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }
}
