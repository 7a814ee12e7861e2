package chunkrelay.envelope.archive;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.bind.annotation.Bindable;

import java.nio.file.Path;

/**
 * The embedded S3 server's store, {@code relay.storage.embedded.*}.
 *
 * @param directory   where it keeps its files
 * @param minFreeDisk free space below which the relay refuses what it would write there ({@link ByteSize}: bytes,
 *                    or with a unit such as {@code 30MiB} or {@code 1GiB}), so that the disk never fills
 */
@ConfigurationProperties("relay.storage.embedded")
public record EmbeddedStorageConfig(@Bindable(defaultValue = "./data") Path directory,
                                    @Bindable(defaultValue = "1GiB") String minFreeDisk) {

    public EmbeddedStorageConfig {
        ByteSize.parse("relay.storage.embedded.min-free-disk", minFreeDisk);
    }

    public long minFreeDiskBytes() {
        return ByteSize.parse("relay.storage.embedded.min-free-disk", minFreeDisk);
    }
}
