package chunkrelay.envelope.testing;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserDefinedFileAttributeView;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A file system of a few MiB of its own, for a relay whose embedded store must run out of room: a tmpfs, or, where
 * the kernel's tmpfs keeps no user xattrs (before Linux 6.6; the embedded store keeps its metadata in them), an ext4
 * image mounted over a loop device. Mounting needs root, as the CI runs the tests.
 */
public final class SmallDisk implements AutoCloseable {
    private final Path mountPoint;
    private final Path image;

    private SmallDisk(Path mountPoint, Path image) {
        this.mountPoint = mountPoint;
        this.image = image;
    }

    public static SmallDisk mount(int mib) throws IOException, InterruptedException {
        Path mountPoint = Files.createTempDirectory("small-disk");
        run("mount", "-t", "tmpfs", "-o", "size=" + mib + "m", "tmpfs", mountPoint.toString());
        if (keepsUserXattrs(mountPoint)) {
            return new SmallDisk(mountPoint, null);
        }
        run("umount", mountPoint.toString());
        Path image = Files.createTempFile("small-disk", ".ext4");
        try (RandomAccessFile file = new RandomAccessFile(image.toFile(), "rw")) {
            file.setLength((long) mib << 20);
        }
        run("mkfs.ext4", "-q", "-F", image.toString());
        run("mount", "-o", "loop", image.toString(), mountPoint.toString());
        return new SmallDisk(mountPoint, image);
    }

    public Path path() {
        return mountPoint;
    }

    public long freeBytes() {
        return mountPoint.toFile().getUsableSpace();
    }

    /** Writes a file of {@code mib} MiB, to take room that a test gives back by deleting it. */
    public Path ballast(String name, int mib) throws IOException {
        Path file = mountPoint.resolve(name);
        byte[] block = new byte[1 << 20];
        java.util.Arrays.fill(block, (byte) 0x5a);
        try (var out = Files.newOutputStream(file)) {
            for (int i = 0; i < mib; i++) {
                out.write(block);
            }
        }
        return file;
    }

    @Override
    public void close() throws IOException, InterruptedException {
        run("umount", mountPoint.toString());
        Files.deleteIfExists(mountPoint);
        if (image != null) {
            Files.deleteIfExists(image);
        }
    }

    private static boolean keepsUserXattrs(Path directory) throws IOException {
        Path probe = Files.createFile(directory.resolve(".xattr-probe"));
        try {
            Files.getFileAttributeView(probe, UserDefinedFileAttributeView.class)
                    .write("probe", ByteBuffer.wrap("1".getBytes(StandardCharsets.UTF_8)));
            return true;
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        } finally {
            Files.delete(probe);
        }
    }

    private static void run(String... command) throws IOException, InterruptedException {
        List<String> line = new ArrayList<>(List.of(command));
        Process process = new ProcessBuilder(line).redirectErrorStream(true).start();
        if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new IOException(String.join(" ", line) + " failed: "
                    + new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
        }
    }
}
