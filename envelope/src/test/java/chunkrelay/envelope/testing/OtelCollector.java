package chunkrelay.envelope.testing;

import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The real OpenTelemetry Collector, built by the tests from its Go modules at pinned versions
 * ({@code src/test/resources/otelcol}: {@code otelcol} with the {@code otlpreceiver} and a small exporter that writes
 * each profiles request it received to a file of its own, as OTLP protobuf bytes), and run on 127.0.0.1 with the
 * {@code service.profilesSupport} feature gate on. The binary is kept under {@code target/otelcol/}, named after a
 * hash of its sources, so a rerun does not build again; Go's module and build caches make a rebuild after
 * {@code mvn clean} quick too. The build asks for the toolchain {@code go.mod} names ({@code GOTOOLCHAIN=auto}), which
 * a Go older than that (1.21 or later) fetches from the module proxy.
 */
public final class OtelCollector implements AutoCloseable {
    /** The first build on two cores with empty Go caches takes minutes; a cached one none. */
    private static final Duration BUILD_TIMEOUT = Duration.ofMinutes(20);
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
    private static final List<String> SOURCES = List.of("main.go", "go.mod", "go.sum");

    private final Process process;
    private final Path output;
    private final Path log;
    private final int port;

    private OtelCollector(Process process, Path output, Path log, int port) {
        this.process = process;
        this.output = output;
        this.log = log;
        this.port = port;
    }

    /** Builds the Collector unless a binary of the same sources exists, and returns it. */
    public static synchronized Path binary() {
        Path sources = sourceDir();
        Path target = sources.getParent().getParent().resolve("otelcol");
        Path binary = target.resolve("otelcol-" + hashOf(sources));
        if (Files.isExecutable(binary)) {
            return binary;
        }
        try {
            Files.createDirectories(target);
            Path building = target.resolve("building-" + UUID.randomUUID());
            Path buildLog = target.resolve("build.log");
            ProcessBuilder go = new ProcessBuilder("go", "build", "-trimpath", "-o", building.toString(), ".")
                    .directory(sources.toFile()).redirectErrorStream(true).redirectOutput(buildLog.toFile());
            // the go.mod's toolchain, fetched from the module proxy when the installed Go is older; sums from go.sum
            go.environment().putAll(Map.of("GOTOOLCHAIN", "auto", "GOFLAGS", "-mod=readonly"));
            long start = System.nanoTime();
            Process build = go.start();
            if (!build.waitFor(BUILD_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                build.destroyForcibly();
                throw new AssertionError("building the Collector took over " + BUILD_TIMEOUT + "; log: " + buildLog);
            }
            if (build.exitValue() != 0) {
                throw new AssertionError("building the Collector failed (exit " + build.exitValue() + "):\n"
                        + Files.readString(buildLog));
            }
            Files.move(building, binary, StandardCopyOption.ATOMIC_MOVE);
            System.out.println("[otelcol] built " + binary.getFileName() + " in "
                    + TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start) + " s");
            return binary;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot build the Collector (is go on the PATH?)", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while building the Collector", e);
        }
    }

    /** Starts the Collector with its OTLP/HTTP receiver on a free port; answers once the port takes connections. */
    public static OtelCollector start() throws IOException, InterruptedException {
        Path binary = binary();
        Path run = binary.getParent().resolve("run-" + UUID.randomUUID());
        Path output = run.resolve("received");
        Files.createDirectories(output);
        int port = freePort();
        Path config = run.resolve("collector.yaml");
        Files.writeString(config, """
                receivers:
                  otlp:
                    protocols:
                      http:
                        endpoint: 127.0.0.1:%d
                exporters:
                  files:
                    directory: %s
                service:
                  telemetry:
                    metrics:
                      level: none
                  pipelines:
                    profiles:
                      receivers: [otlp]
                      exporters: [files]
                """.formatted(port, output));
        Path log = run.resolve("collector.log");
        Process process = new ProcessBuilder(binary.toString(), "--config", config.toString(),
                "--feature-gates=service.profilesSupport")
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        OtelCollector collector = new OtelCollector(process, output, log, port);
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (!collector.accepting()) {
            if (!process.isAlive() || System.nanoTime() > deadline) {
                collector.close();
                throw new AssertionError("the Collector did not start listening on port " + port + ":\n"
                        + Files.readString(log));
            }
            Thread.sleep(100);
        }
        return collector;
    }

    /** The endpoint to configure as {@code relay.otlp.endpoint}. */
    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + port);
    }

    /** The requests the Collector's pipeline has written so far, in the order it received them. */
    public List<ExportProfilesServiceRequest> received() throws IOException {
        List<Path> files;
        try (Stream<Path> listed = Files.list(output)) {
            files = listed.filter(p -> p.getFileName().toString().endsWith(".pb")).sorted().toList();
        }
        List<ExportProfilesServiceRequest> requests = new ArrayList<>();
        for (Path file : files) {
            requests.add(ExportProfilesServiceRequest.parseFrom(Files.readAllBytes(file)));
        }
        return requests;
    }

    /** What the Collector logged, for a failure message. */
    public String log() throws IOException {
        return Files.readString(log, StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    private boolean accepting() {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    /** {@code target/test-classes/otelcol}, where Maven copied the Go sources. */
    private static Path sourceDir() {
        try {
            return Path.of(OtelCollector.class.getResource("/otelcol/main.go").toURI()).getParent();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String hashOf(Path sources) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            for (String name : SOURCES) {
                sha.update(Files.readAllBytes(sources.resolve(name)));
            }
            return HexFormat.of().formatHex(sha.digest(), 0, 8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
