package chunkrelay.bench;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

/**
 * The table a benchmark run prints: the sections write their figures into it and check their targets against it,
 * and it ends with every target, met or missed. Progress goes to stderr, apart from the table.
 */
final class BenchReport {
    private final StringWriter text = new StringWriter();
    private final PrintWriter out = new PrintWriter(text);
    private final List<String> targets = new ArrayList<>();

    PrintWriter out() {
        return out;
    }

    void header() {
        Runtime runtime = Runtime.getRuntime();
        out.printf("chunk-relay benchmarks, %s, %s %s, %d cores, %s %s (%s)%n",
                Instant.now().truncatedTo(ChronoUnit.SECONDS), System.getProperty("os.name"),
                System.getProperty("os.arch"), runtime.availableProcessors(), System.getProperty("java.vm.name"),
                System.getProperty("java.runtime.version"), System.getProperty("java.vendor"));
    }

    void target(String what, boolean met, String measured) {
        targets.add(String.format("  %-6s %-68s %s", met ? "met" : "MISSED", what, measured));
    }

    /** The table with the targets section appended: call once, when every section ran. */
    String withTargets() {
        out.printf("%nTargets%n");
        targets.forEach(out::println);
        out.flush();
        return text.toString();
    }

    static void progress(String step) {
        System.err.println("[bench " + Instant.now().truncatedTo(ChronoUnit.SECONDS) + "] " + step);
    }
}
