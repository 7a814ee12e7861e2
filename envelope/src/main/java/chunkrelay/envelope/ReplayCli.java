package chunkrelay.envelope;

import chunkrelay.envelope.auth.ProjectIds;
import chunkrelay.envelope.pipeline.ChunkDerivations;
import chunkrelay.envelope.forward.ReplayCommand;
import chunkrelay.envelope.forward.ReplaySummary;

import chunkrelay.storage.ArchiveUnavailableException;
import io.micronaut.context.ApplicationContext;
import io.micronaut.context.exceptions.BeanInstantiationException;

import java.io.PrintStream;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code java -jar envelope.jar replay --project <id> --from <yyyy-mm-dd> --to <yyyy-mm-dd>}: runs
 * {@link ReplayCommand} in an application context with the relay's configuration ({@code relay.storage.*},
 * {@code relay.otlp.*}) but no HTTP server. Exit code 0 when every chunk is delivered (now or before), 1 when some
 * could not be, 2 for a usage or configuration error.
 */
public final class ReplayCli {
    static final String COMMAND = "replay";
    static final int OK = 0;
    static final int INCOMPLETE = 1;
    public static final int USAGE = 2;
    static final String USAGE_TEXT = "usage: replay --project <project id> --from <yyyy-mm-dd> --to <yyyy-mm-dd>\n"
            + "  re-sends the archived OTLP form of every chunk of the project whose first sample lies in the UTC days"
            + " [from, to] and that has no delivery marker; needs relay.otlp.endpoint (env RELAY_OTLP_ENDPOINT) and"
            + " the relay's relay.storage.* configuration";

    private ReplayCli() {
    }

    /** The parsed arguments. */
    record Arguments(String projectId, LocalDate from, LocalDate to) {

        static Arguments parse(List<String> args) {
            Map<String, String> options = new HashMap<>();
            for (int i = 0; i < args.size(); i++) {
                String arg = args.get(i);
                int equals = arg.indexOf('=');
                String name = equals < 0 ? arg : arg.substring(0, equals);
                if (!List.of("--project", "--from", "--to").contains(name)) {
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
            String project = required(options, "--project");
            if (ProjectIds.parse(project).isEmpty()) {
                throw new IllegalArgumentException("--project must be a numeric project id, got '" + project + "'");
            }
            LocalDate from = day(required(options, "--from"), "--from");
            LocalDate to = day(required(options, "--to"), "--to");
            if (from.isAfter(to)) {
                throw new IllegalArgumentException("--from " + from + " is after --to " + to);
            }
            return new Arguments(project, from, to);
        }

        private static String required(Map<String, String> options, String name) {
            String value = options.get(name);
            if (value == null || value.isBlank()) {
                throw new IllegalArgumentException(name + " is required");
            }
            return value.trim();
        }

        private static LocalDate day(String value, String name) {
            try {
                return LocalDate.parse(value);
            } catch (DateTimeParseException e) {
                throw new IllegalArgumentException(name + " must be a day as yyyy-mm-dd, got '" + value + "'");
            }
        }
    }

    /** Runs the command and returns the process exit code; {@code args} excludes the command name. */
    public static int run(List<String> args, PrintStream out, PrintStream err) {
        Arguments arguments;
        try {
            arguments = Arguments.parse(args);
        } catch (IllegalArgumentException e) {
            err.println("replay: " + e.getMessage());
            err.println(USAGE_TEXT);
            return USAGE;
        }
        try (ApplicationContext context = ApplicationContext.run()) {
            if (context.getProperty("relay.otlp.endpoint", String.class).filter(s -> !s.isBlank()).isEmpty()) {
                err.println("replay: relay.otlp.endpoint (env RELAY_OTLP_ENDPOINT) is not set: there is nothing to"
                        + " replay to");
                return USAGE;
            }
            // chunks archived but not derived (a relay stopped inside their link window) get their OTLP form first
            context.getBean(ChunkDerivations.class).deriveForReplay(arguments.projectId(), arguments.from(),
                    arguments.to());
            ReplaySummary summary = context.getBean(ReplayCommand.class)
                    .replay(arguments.projectId(), arguments.from(), arguments.to());
            out.println(summary.describe());
            summary.failures().forEach(failure -> err.println("replay: not delivered: " + failure));
            return summary.complete() ? OK : INCOMPLETE;
        } catch (BeanInstantiationException e) {
            err.println("replay: configuration error: " + rootMessage(e));
            return USAGE;
        } catch (ArchiveUnavailableException e) {
            err.println("replay: the archive is not reachable: " + e.getMessage());
            return INCOMPLETE;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("replay: interrupted; chunks not delivered yet stay for the next replay");
            return INCOMPLETE;
        }
    }

    private static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null) {
            root = root.getCause();
        }
        return root.getMessage();
    }
}
