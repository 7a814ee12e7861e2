package chunkrelay.envelope.archive;

import jakarta.inject.Singleton;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** The relay's own name and version (from the build), written into archive metadata and the OTLP scope. */
@Singleton
public class RelayVersion {
    public static final String NAME = "chunk-relay";

    private final String version;

    public RelayVersion() {
        try (InputStream in = RelayVersion.class.getResourceAsStream("/chunk-relay-version.txt")) {
            version = in == null ? "dev" : new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public String version() {
        return version;
    }
}
