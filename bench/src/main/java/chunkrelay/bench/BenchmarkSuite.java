package chunkrelay.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Runs every benchmark of issue 9 in one go and prints one table, each figure next to the floor measured in the
 * same run: the chunk path (JMH) against a bare Jackson token pass, output sizes against the chunk's JSON,
 * end-to-end ingest against the discard endpoint of the same relay, and the smallest heap for a 50 MiB chunk.
 * The sections are {@link InProcessSections}, {@link JmhSections} and {@link RelayJarSections}, all writing into
 * one {@link BenchReport}.
 *
 * <p>{@code mvn -B -q -Pbench -pl envelope -am verify -DskipTests}; the argument is the relay's shaded jar.
 * The table also goes to {@code envelope/target/benchmark-report.txt}.
 */
public final class BenchmarkSuite {
    private BenchmarkSuite() {
    }

    public static void main(String[] args) throws Exception {
        Path jar = Path.of(args[0]);
        if (!Files.isRegularFile(jar)) {
            throw new IllegalArgumentException("no relay jar at " + jar + " (build it with mvn package first)");
        }
        // -Dbench.only=sizes,chunk-path,stages,waiting,android,links,views,fleet-views,live-views,end-to-end,default,
        // soak,memory,quota,ranges,per-second,merge runs some sections; all but ranges, per-second and merge by default
        Set<String> only = Set.of(System.getProperty("bench.only", "sizes,chunk-path,stages,waiting,android,links,"
                        + "views,fleet-views,live-views,end-to-end,default,soak,memory,quota")
                .split(","));
        BenchReport report = new BenchReport();
        InProcessSections inProcess = new InProcessSections(report);
        JmhSections jmh = new JmhSections(report);
        RelayJarSections relay = new RelayJarSections(report, jar);
        report.header();
        if (only.contains("sizes")) {
            inProcess.outputSizes();
        }
        if (only.contains("chunk-path")) {
            jmh.chunkPath();
        }
        if (only.contains("stages")) {
            inProcess.ingestStages();
        }
        if (only.contains("waiting")) {
            inProcess.waitingChunks();
        }
        if (only.contains("android")) {
            jmh.android();
        }
        if (only.contains("links")) {
            jmh.links();
        }
        if (only.contains("per-second")) {
            inProcess.perSecondMinute();
        }
        if (only.contains("merge")) {
            inProcess.rollupMerge();
        }
        if (only.contains("views")) {
            inProcess.views();
        }
        if (only.contains("fleet-views")) {
            relay.fleetViews();
        }
        if (only.contains("live-views")) {
            relay.liveViews();
        }
        if (only.contains("fleet-views") || only.contains("fleet-queries")) {
            inProcess.fleetQueries();
        }
        if (only.contains("ranges")) {
            relay.ranges();
        }
        if (only.contains("end-to-end")) {
            relay.endToEnd();
        }
        if (only.contains("default")) {
            relay.defaultConfiguration();
        }
        if (only.contains("soak")) {
            relay.soak();
        }
        if (only.contains("memory")) {
            relay.memory();
        }
        if (only.contains("quota")) {
            inProcess.quota();
        }
        String table = report.withTargets();
        System.out.print(table);
        Path written = jar.toAbsolutePath().getParent().resolve("benchmark-report.txt");
        Files.writeString(written, table);
        System.out.println("(also written to " + written + ")");
    }

    static void deleteTree(Path root) throws IOException {
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }
}
