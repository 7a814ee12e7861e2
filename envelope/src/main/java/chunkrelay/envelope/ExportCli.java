package chunkrelay.envelope;

import chunkrelay.envelope.errors.RelayError;
import chunkrelay.envelope.views.ExportFormat;
import chunkrelay.envelope.views.ProfileQuestions;
import chunkrelay.envelope.views.ProfileViews;
import chunkrelay.envelope.views.QuestionExport;
import chunkrelay.envelope.views.ViewQuery;
import chunkrelay.storage.ArchiveUnavailableException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micronaut.context.ApplicationContext;
import io.micronaut.context.exceptions.BeanInstantiationException;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code java -jar envelope.jar export --project 1 --from <time> --to <time> --format pprof --out profile.pb.gz}
 * (plus {@code --profiler-id}, {@code --thread-id}, {@code --trace-id}, {@code --span-id}, {@code --platform},
 * {@code --release}, {@code --environment}): the query API's {@code profile} export, through the same code, from the
 * relay's configured archive and without a server; {@code --format traces} and {@code --format diff --baseline …
 * --comparison …} write the API's {@code traces} and {@code diff} JSON. Exit code 0 when the file is written, 1 when
 * the archive cannot be read, 2 for a usage or configuration error.
 */
public final class ExportCli {
    static final String COMMAND = "export";
    static final int OK = 0;
    static final int FAILED = 1;
    static final int USAGE = 2;
    static final String USAGE_TEXT = "usage: export --project <id> [--from <time>] [--to <time>]"
            + " [--format pprof|speedscope|collapsed|otlp|traces|diff] --out <file> [--profiler-id <hex>]"
            + " [--thread-id <id>] [--trace-id <hex>] [--span-id <hex>] [--platform <name>] [--release <release>]"
            + " [--environment <name>] [--baseline <from>/<to>|release:<name> --comparison <from>/<to>|release:<name>]\n"
            + "  times are RFC 3339 (2026-11-22T02:00:00Z) or Unix seconds; the range defaults to the last hour;"
            + " reads the archive of the relay's relay.storage.* configuration";
    private static final List<String> OPTIONS = List.of("--project", "--from", "--to", "--format", "--out",
            "--profiler-id", "--thread-id", "--trace-id", "--span-id", "--platform", "--release", "--environment",
            "--baseline", "--comparison");

    private ExportCli() {
    }

    /** Runs the command and returns the process exit code; {@code args} excludes the command name. */
    public static int run(List<String> args, PrintStream out, PrintStream err) {
        Map<String, String> options;
        ViewQuery query;
        ExportFormat format;
        Path file;
        try {
            options = options(args);
            if (!options.containsKey("--project") || !options.containsKey("--out")) {
                throw new IllegalArgumentException("--project and --out are required");
            }
            query = ViewQuery.parse(options.get("--project"), options.get("--from"), options.get("--to"),
                    options.get("--profiler-id"), options.get("--platform"), options.get("--release"),
                    options.get("--thread-id"), options.get("--trace-id"), options.get("--span-id"), Instant.now())
                    .withEnvironment(options.get("--environment"));
            String formatName = options.getOrDefault("--format", "pprof");
            format = QuestionExport.handles(formatName) ? null : ExportFormat.of(formatName);
            file = Path.of(options.get("--out"));
        } catch (IllegalArgumentException | RelayError e) {
            err.println("export: " + e.getMessage());
            err.println(USAGE_TEXT);
            return USAGE;
        }
        try (ApplicationContext context = ApplicationContext.run()) {
            ProfileViews views = context.getBean(ProfileViews.class);
            try (OutputStream stream = Files.newOutputStream(file)) {
                if (format == null) {
                    QuestionExport.write(options.get("--format"), query, options.get("--baseline"),
                            options.get("--comparison"), context.getBean(ProfileQuestions.class),
                            context.getBean(ObjectMapper.class), stream);
                } else {
                    views.export(query, format, stream);
                }
            }
            out.println("export: wrote " + file + " (" + Files.size(file) + " bytes, "
                    + options.getOrDefault("--format", "pprof")
                    + ", project " + query.project() + ", " + query.from() + " to " + query.to() + ")");
            return OK;
        } catch (RelayError e) {
            err.println("export: " + e.getMessage());
            return USAGE;
        } catch (BeanInstantiationException e) {
            err.println("export: configuration error: " + e.getMessage());
            return USAGE;
        } catch (ArchiveUnavailableException | IOException e) {
            err.println("export: " + e.getMessage());
            return FAILED;
        }
    }

    private static Map<String, String> options(List<String> args) {
        Map<String, String> options = new HashMap<>();
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            int equals = arg.indexOf('=');
            String name = equals < 0 ? arg : arg.substring(0, equals);
            if (!OPTIONS.contains(name)) {
                throw new IllegalArgumentException("unknown argument '" + arg + "'");
            }
            String value;
            if (equals >= 0) {
                value = arg.substring(equals + 1);
            } else if (i + 1 < args.size()) {
                value = args.get(++i);
            } else {
                throw new IllegalArgumentException(name + " needs a value");
            }
            if (options.put(name, value) != null) {
                throw new IllegalArgumentException(name + " given twice");
            }
        }
        return options;
    }
}
