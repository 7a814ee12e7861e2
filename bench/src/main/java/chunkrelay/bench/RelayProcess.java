package chunkrelay.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.FileVisitResult;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The relay's shaded jar running as a child process on a free loopback port, working in its own temporary
 * directory, its embedded archive in {@code archive/} there, with the benchmark's discard endpoint on.
 */
final class RelayProcess implements AutoCloseable {
    private static final Duration STARTUP = Duration.ofSeconds(90);
    static final Duration LINK_WINDOW = Duration.ofSeconds(2);

    private final Process process;
    private final URI base;
    private final Path log;
    private final Path archive;

    private RelayProcess(Process process, URI base, Path log, Path archive) {
        this.process = process;
        this.base = base;
        this.log = log;
        this.archive = archive;
    }

    /**
     * The default path (Sentry form before the answer, OTLP form after the link window), with a window short enough
     * that a load row's derivations finish soon after it.
     */
    static RelayProcess start(Path jar, String maxHeap, Path workDir) {
        // the default path (Sentry form before the answer, OTLP form after the link window), with a window short
        // enough that a load row's derivations finish soon after it
        return start(jar, maxHeap, workDir, List.of("-Drelay.links.window=" + LINK_WINDOW.toSeconds() + "s"));
    }

    /**
     * The relay with its default configuration (link window, rollup delay and interval, views cap), as the shipped
     * container runs it: the heap it takes there and its exit on running out of memory.
     */
    static RelayProcess startAsShipped(Path jar, String maxHeap, Path workDir) {
        return start(jar, maxHeap, workDir, List.of("-XX:+ExitOnOutOfMemoryError"));
    }

    private static RelayProcess start(Path jar, String maxHeap, Path workDir, List<String> options) {
        try {
            Files.createDirectories(workDir);
            int port = freePort();
            List<String> command = new ArrayList<>(List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xmx" + maxHeap,
                    "-Dmicronaut.server.port=" + port,
                    "-Dmicronaut.server.host=127.0.0.1",
                    "-Drelay.benchmark.discard-endpoint=true",
                    "-Drelay.storage.embedded.directory=" + workDir.resolve("archive").toAbsolutePath(),
                    // a bench machine may have less than the default 1 GiB free; the guard is not what is measured
                    "-Drelay.storage.embedded.min-free-disk=0"));
            command.addAll(options);
            // -Dbench.relay.jvm-options="-XX:StartFlightRecording=..." profiles the relay under the benchmark's load
            String extra = System.getProperty("bench.relay.jvm-options", "").trim();
            if (!extra.isEmpty()) {
                command.addAll(List.of(extra.split("\\s+")));
            }
            command.addAll(List.of("-jar", jar.toAbsolutePath().toString()));
            Path log = workDir.resolve("relay.log");
            Process process = new ProcessBuilder(command).directory(workDir.toFile())
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            RelayProcess relay = new RelayProcess(process, URI.create("http://127.0.0.1:" + port), log,
                    workDir.resolve("archive"));
            relay.awaitReady();
            return relay;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    URI base() {
        return base;
    }

    long pid() {
        return process.pid();
    }

    /** How many chunks the archive holds: their Sentry objects, which a 200 promises. */
    long archivedChunks() {
        return countObjects(".sentry.json");
    }

    /** How many chunks have their OTLP form derived (written after the link window). */
    long derivedChunks() {
        return countObjects(".otlp.binpb");
    }

    private long countObjects(String suffix) {
        return objectNames().stream().filter(name -> name.contains(suffix)).count();
    }

    /**
     * How many rollup objects the relay has written, by tier letter ({@code m}, {@code h}, {@code d}): every stored
     * version, named {@code rollups/{project}/{day}/{tier}{bucket}.{chunks}}.
     */
    Map<Character, Long> rollupObjects() {
        Map<Character, Long> tiers = new TreeMap<>();
        try (Stream<Path> files = Files.walk(archive)) {
            files.filter(Files::isRegularFile).filter(file -> file.toString().contains("/rollups/"))
                    .forEach(file -> tiers.merge(file.getFileName().toString().charAt(0), 1L, Long::sum));
        } catch (IOException | UncheckedIOException vanished) {
            // a version removed while walking: the next look counts it right
        }
        return tiers;
    }

    /** The chunk ids whose Sentry object (what a 200 promises) the archive holds. */
    Set<String> archivedChunkIds() {
        return objectNames().stream().filter(name -> name.contains(".sentry.json"))
                .map(name -> name.substring(0, name.indexOf('.'))).collect(Collectors.toSet());
    }

    /**
     * The names of the archive's finished objects. The store writes each object to a temporary name and renames it,
     * so a walk during load skips files that vanish under it and names that are not final.
     */
    private List<String> objectNames() {
        List<String> names = new ArrayList<>();
        try {
            Files.walkFileTree(archive, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) {
                    String name = file.getFileName().toString();
                    if (name.endsWith(".zst") || name.endsWith(".gz")) {
                        names.add(name);
                    }
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFileFailed(Path file, IOException e) {
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return names;
    }

    /** Waits until every archived chunk has its OTLP form (the link window has passed for all), up to {@code timeout}. */
    void awaitDerived(Duration timeout) throws InterruptedException {
        long until = System.nanoTime() + timeout.toNanos();
        while (derivedChunks() < archivedChunks() && System.nanoTime() < until && alive()) {
            Thread.sleep(200);
        }
    }

    /** Whether both forms of this chunk id are stored within {@code timeout} (the OTLP form after the window). */
    boolean awaitArchived(String chunkId, Duration timeout) throws InterruptedException {
        long until = System.nanoTime() + timeout.toNanos();
        while (!archived(chunkId)) {
            if (System.nanoTime() > until || !alive()) {
                return false;
            }
            Thread.sleep(200);
        }
        return true;
    }

    /** Whether both forms of this chunk id (32 lowercase hex digits) are stored. */
    boolean archived(String chunkId) {
        return objectNames().stream().filter(name -> name.startsWith(chunkId)).count() == 2;
    }

    /** CPU time the process has used so far (user and system, all threads), from /proc. */
    long cpuNanos() {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(process.pid()), "stat"));
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
            return ticks * 10_000_000L;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Bytes the relay's JVM allocated so far, from its {@code /prometheus} ({@code jvm.gc.memory.allocated}). */
    double allocatedBytes() {
        return chunkrelay.envelope.testing.PrometheusScrape.of(base).value("jvm_gc_memory_allocated_bytes_total");
    }

    boolean alive() {
        return process.isAlive();
    }

    /** The process's peak resident set (VmHWM) in KiB, or -1 where /proc is not there. */
    long peakRssKib() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(process.pid()), "status"))) {
                if (line.startsWith("VmHWM:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
        return -1;
    }

    /** Any HTTP answer means the server is up; the discard endpoint answers 200 to an empty body. */
    private void awaitReady() {
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
        long deadline = System.nanoTime() + STARTUP.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("relay exited with " + process.exitValue() + "; log: " + tail());
            }
            try {
                HttpResponse<Void> response = client.send(HttpRequest.newBuilder(base.resolve("/benchmark/discard"))
                        .POST(HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(2)).build(),
                        HttpResponse.BodyHandlers.discarding());
                if (response.statusCode() == 200) {
                    return;
                }
                throw new IllegalStateException("discard endpoint answered " + response.statusCode());
            } catch (IOException notYet) {
                sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        close();
        throw new IllegalStateException("relay not up within " + STARTUP + "; log: " + tail());
    }

    String tail() {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(15, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(15, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
