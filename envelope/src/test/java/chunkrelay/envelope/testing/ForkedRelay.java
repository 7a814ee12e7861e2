package chunkrelay.envelope.testing;

import chunkrelay.chunk.testing.ChildJvm;
import chunkrelay.envelope.Application;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The relay application in a JVM of its own (the test class path, a heap of the test's choosing, the embedded archive
 * in a directory of the test's), so that its threads, memory and heap limits are the relay's alone.
 */
public final class ForkedRelay implements AutoCloseable {
    private final Process process;
    private final int port;
    private final Path log;

    private ForkedRelay(Process process, int port, Path log) {
        this.process = process;
        this.port = port;
        this.log = log;
    }

    /** Starts the relay with {@code -Xmx{heapMib}m} and waits until it listens. */
    public static ForkedRelay start(int heapMib, Path work, String... systemProperties) throws Exception {
        return start(heapMib, work, Map.of(), systemProperties);
    }

    /** As {@link #start(int, Path, String...)}, with environment variables for the relay's process. */
    public static ForkedRelay start(int heapMib, Path work, Map<String, String> environment,
                                    String... systemProperties) throws Exception {
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
        List<String> options = new ArrayList<>(List.of("-Xmx" + heapMib + "m", "-Dmicronaut.server.port=" + port,
                "-Drelay.storage.embedded.directory=" + work.resolve("archive"),
                // a build machine may have less than the default 1 GiB free
                "-Drelay.storage.embedded.min-free-disk=0"));
        for (String property : systemProperties) {
            options.add("-D" + property);
        }
        List<String> command = ChildJvm.command(options, Application.class);
        Path log = work.resolve("relay.log");
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().putAll(environment);
        Process process = builder.start();
        ForkedRelay relay = new ForkedRelay(process, port, log);
        relay.awaitListening();
        return relay;
    }

    public int port() {
        return port;
    }

    public URI base() {
        return URI.create("http://127.0.0.1:" + port);
    }

    public boolean alive() {
        return process.isAlive();
    }

    /** A number field of the relay's /proc status, e.g. {@code Threads:} or {@code VmRSS:} (KiB). */
    public long status(String field) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(process.pid()), "status"))) {
            if (line.startsWith(field)) {
                return Long.parseLong(line.replaceAll("\\D", ""));
            }
        }
        throw new IllegalStateException("no " + field + " in /proc status");
    }

    public String log() throws IOException {
        return Files.readString(log);
    }

    private void awaitListening() throws Exception {
        long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (System.nanoTime() < giveUp) {
            if (!process.isAlive()) {
                throw new IllegalStateException("relay exited: " + log());
            }
            try (Socket probe = new Socket("127.0.0.1", port)) {
                return;
            } catch (IOException notYet) {
                Thread.sleep(100);
            }
        }
        throw new IllegalStateException("relay did not listen within 90 s: " + log());
    }

    @Override
    public void close() throws InterruptedException {
        process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    }
}
