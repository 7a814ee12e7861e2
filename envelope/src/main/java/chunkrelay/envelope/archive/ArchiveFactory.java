package chunkrelay.envelope.archive;

import chunkrelay.envelope.schedule.BackgroundWork;
import chunkrelay.storage.ArchiveCompression;
import chunkrelay.storage.ArchiveSettings;
import chunkrelay.storage.ChunkArchive;
import chunkrelay.storage.EmbeddedS3Server;
import chunkrelay.storage.ObjectStore;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Requires;
import io.micronaut.core.annotation.Nullable;
import jakarta.inject.Singleton;

import java.time.Clock;

/**
 * The archive: the configured bucket, or, when no bucket or endpoint is configured, an embedded S3 server
 * (S3Proxy, filesystem backend) whose store the relay writes in-process with the same S3 requests, while the server
 * serves the same objects over HTTP to anyone else.
 */
@Factory
public class ArchiveFactory {

    @Singleton
    @Bean(preDestroy = "close")
    @Requires(missingProperty = "relay.storage.s3.endpoint")
    @Requires(missingProperty = "relay.storage.s3.bucket")
    EmbeddedS3Server embeddedS3Server(EmbeddedStorageConfig embedded) {
        return EmbeddedS3Server.unsignedFilesystem(embedded.directory().toAbsolutePath().normalize());
    }

    /**
     * The bucket, shared by the chunk archive and by what the relay keeps beside the chunks under its own prefixes.
     * Its client (over HTTP: the AWS SDK's scheduled executor and its connection pool) is closed with the other
     * clients, after every stage that writes to the bucket has stopped ({@link BackgroundWork.Stage}).
     */
    @Singleton
    ObjectStore objectStore(StorageConfig storage, S3StorageConfig s3, @Nullable EmbeddedS3Server embedded,
                            Clock clock, BackgroundWork work) {
        ArchiveSettings settings = new ArchiveSettings(s3.endpoint(), s3.region(), s3.bucket(), s3.prefix(),
                s3.pathStyle(), s3.accessKey(), s3.secretKey(), s3.createBucketIfMissing(),
                ArchiveCompression.fromName(storage.compression()), storage.deadline(), null, null, null, null);
        ObjectStore store = embedded == null ? ObjectStore.overHttp(settings, clock)
                : ObjectStore.inProcess(embedded, settings, clock);
        work.atStop(BackgroundWork.Stage.CLIENTS, "bucket client", left -> store.close());
        return store;
    }

    @Singleton
    ChunkArchive chunkArchive(ObjectStore store) {
        return new ChunkArchive(store);
    }
}
