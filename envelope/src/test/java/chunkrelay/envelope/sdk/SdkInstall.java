package chunkrelay.envelope.sdk;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * A directory the test owns where an SDK's driver files are copied from test resources and its packages installed,
 * the install kept between runs: a marker file holds the digest of what the install depends on, and the install
 * runs again only when that changes or what it made is gone.
 */
final class SdkInstall {
    private static final String MARKER = ".installed-digest";

    private final String sdk;
    private final Path dir;

    SdkInstall(String sdk, Path dir) {
        this.sdk = sdk;
        this.dir = dir;
    }

    Path dir() {
        return dir;
    }

    /**
     * Copies {@code files} from the test resources under {@code resources} into the directory.
     *
     * @param digested the files the install depends on (package lists), in the digest in this order
     * @param extra    more text the install depends on (e.g. the interpreter it was made with)
     * @return the digest of the digested files and the extra text
     */
    String copy(String resources, List<String> files, Set<String> digested, String extra) {
        try {
            Files.createDirectories(dir);
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            for (String file : files) {
                byte[] bytes;
                try (InputStream in = SdkInstall.class.getResourceAsStream(resources + file)) {
                    if (in == null) {
                        throw new AssertionError(sdk + " SDK, step 'copy driver': test resource " + resources + file
                                + " is missing");
                    }
                    bytes = in.readAllBytes();
                }
                Files.write(dir.resolve(file), bytes);
                if (digested.contains(file)) {
                    digest.update(bytes);
                }
            }
            digest.update(extra.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest.digest());
        } catch (IOException e) {
            throw new UncheckedIOException(sdk + " SDK, step 'copy driver' into " + dir, e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Whether an install with this digest finished and left {@code product} (a directory under this one). */
    boolean installed(String digest, String product) {
        Path marker = dir.resolve(MARKER);
        try {
            return Files.exists(marker) && Files.readString(marker).trim().equals(digest)
                    && Files.isDirectory(dir.resolve(product));
        } catch (IOException e) {
            return false;
        }
    }

    /** Records that the install with this digest finished. */
    void markInstalled(String digest) {
        try {
            Files.writeString(dir.resolve(MARKER), digest);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Removes {@code product} (a directory under this one) before installing it anew. */
    void delete(String product) {
        Path root = dir.resolve(product);
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : paths.sorted((a, b) -> b.getNameCount() - a.getNameCount()).toList()) {
                Files.delete(path);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(sdk + " SDK, step 'install': could not clear " + root, e);
        }
    }
}
