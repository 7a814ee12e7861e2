package chunkrelay.envelope.cli;

import chunkrelay.chunk.testing.ChildJvm;
import chunkrelay.envelope.Application;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The command lines' generated help and their refusals: {@code --help} lists every option on stdout with exit code
 * 0; an unknown option or a bad value is named on stderr, with the synopsis, and exit code 2. None of these reads
 * the relay's configuration or the archive.
 */
@Tag("external")
class CliUsageTest {

    /** What a command printed and returned. */
    private record Outcome(int code, String out, String err) {
    }

    @Test
    void replayHelpListsItsOptionsAndExitCodesAndExitsZero() {
        Outcome help = run(ReplayCli::run, "--help");
        assertEquals(0, help.code(), help.err());
        assertEquals("", help.err());
        assertTrue(help.out().startsWith("Usage: replay "), help.out());
        for (String option : List.of("--project=<project id>", "--from=<yyyy-mm-dd>", "--to=<yyyy-mm-dd>",
                "-h, --help", "Exit codes:", "2   usage or configuration error")) {
            assertTrue(help.out().contains(option), option + " in\n" + help.out());
        }
    }

    @Test
    void exportHelpListsItsOptionsAndExitCodesAndExitsZero() {
        Outcome help = run(ExportCli::run, "-h");
        assertEquals(0, help.code(), help.err());
        assertEquals("", help.err());
        assertTrue(help.out().startsWith("Usage: export "), help.out());
        for (String option : List.of("--project=<id>", "--from=<time>", "--to=<time>", "--format=<format>",
                "--out=<file>", "--profiler-id=<hex>", "--thread-id=<id>", "--trace-id=<hex>", "--span-id=<hex>",
                "--platform=<name>", "--release=<release>", "--sort=<self|total>", "--search=<text>", "Exit codes:",
                "1   the archive or the file could not")) {
            assertTrue(help.out().contains(option), option + " in\n" + help.out());
        }
    }

    @Test
    void replayRefusesAnUnknownOptionByNameWithExitTwo() {
        Outcome refused = run(ReplayCli::run, "--project", "1", "--from", "2026-11-01", "--to", "2026-11-02",
                "--force");
        assertEquals(2, refused.code());
        assertEquals("", refused.out());
        List<String> lines = refused.err().lines().toList();
        assertEquals("replay: Unknown option: '--force'", lines.get(0));
        assertTrue(lines.get(1).startsWith("Usage: replay [-h] [--include-refused] --from=<yyyy-mm-dd>"),
                refused.err());
        assertEquals("Try 'replay --help' for more information.", lines.get(lines.size() - 1));
    }

    @Test
    void exportProcessRefusesAnUnknownOptionByNameWithExitTwo() throws Exception {
        Process export = new ProcessBuilder(ChildJvm.command(List.of("-Xmx128m"), Application.class, "export",
                "--project", "1", "--out", "profile.pb.gz", "--fromat", "pprof"))
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        String err = new String(export.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(export.waitFor(60, TimeUnit.SECONDS));
        assertEquals(2, export.exitValue(), err);
        assertTrue(err.startsWith("export: Unknown options: '--fromat', 'pprof'"), err);
        assertTrue(err.contains("Try 'export --help' for more information."), err);
    }

    @Test
    void replayNamesABadDayAndExitsTwo() {
        Outcome refused = run(ReplayCli::run, "--project", "1", "--from", "2026-13-01", "--to", "2026-11-02");
        assertEquals(2, refused.code());
        assertEquals("replay: Invalid value for option '--from': '2026-13-01' is not a day as yyyy-mm-dd",
                refused.err().lines().findFirst().orElseThrow());
    }

    @Test
    void replayRefusesARangeThatEndsBeforeItStarts() {
        Outcome refused = run(ReplayCli::run, "--project", "1", "--from", "2026-11-03", "--to", "2026-11-02");
        assertEquals(2, refused.code());
        assertEquals("replay: --from 2026-11-03 is after --to 2026-11-02",
                refused.err().lines().findFirst().orElseThrow());
    }

    @Test
    void exportNamesAnUnknownFormatAndABadTimeAndExitsTwo() {
        Outcome format = run(ExportCli::run, "--project", "1", "--out", "p", "--format", "svg");
        assertEquals(2, format.code());
        assertEquals("export: Invalid value for option '--format': format must be pprof, speedscope, collapsed,"
                + " otlp, traces, diff, functions, functions-csv, regressions or health, got 'svg'",
                format.err().lines().findFirst().orElseThrow());
        Outcome time = run(ExportCli::run, "--project", "1", "--out", "p", "--from", "yesterday");
        assertEquals(2, time.code());
        assertTrue(time.err().startsWith("export: from must be an RFC 3339 time"), time.err());
    }

    /** {@link ReplayCli#run} or {@link ExportCli#run}. */
    private interface CommandLine {
        int run(List<String> args, PrintStream out, PrintStream err);
    }

    private static Outcome run(CommandLine command, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = command.run(List.of(args), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Outcome(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }
}
