package chunkrelay.envelope.archive;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.bind.annotation.Bindable;

import java.nio.file.Path;

/** Where the embedded S3 server keeps its files, {@code relay.storage.embedded.directory}. */
@ConfigurationProperties("relay.storage.embedded")
public record EmbeddedStorageConfig(@Bindable(defaultValue = "./data") Path directory) {
}
