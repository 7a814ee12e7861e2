package chunkrelay.envelope.cli;

import chunkrelay.envelope.recovery.ReplayCommand;
import chunkrelay.envelope.recovery.ReplayPlan;
import chunkrelay.envelope.recovery.ReplaySummary;
import chunkrelay.envelope.recovery.UnderivedSearch;
import io.micronaut.context.ApplicationContext;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.util.List;

/**
 * {@code java -jar envelope.jar replay --project <id> --from <yyyy-mm-dd> --to <yyyy-mm-dd>}: runs
 * {@link ReplayCommand} in an application context with the relay's configuration ({@code relay.storage.*},
 * {@code relay.otlp.*}) but no HTTP server. It prints how many chunks an endpoint with the acceptance window
 * {@code relay.otlp.max-age} will refuse before it sends them, then the outcome of each chunk not delivered. Exit code
 * 0 when every chunk is delivered (now or before), 1 when some could not be or were refused, 2 for a usage or
 * configuration error.
 */
@Command(name = ReplayCli.COMMAND,
        description = {"Re-sends the archived OTLP form of every chunk of the project whose first sample lies in the"
                + " UTC days [from, to] and that has no delivery marker (nor a refusal marker, unless"
                + " --include-refused). With relay.otlp.max-age set, says first how many the endpoint will refuse"
                + " as too old.",
                "Needs relay.otlp.endpoint (env RELAY_OTLP_ENDPOINT) and the relay's relay.storage.* configuration."},
        exitCodeList = {"0:every chunk is delivered, now or before", "1:some chunks could not be delivered or were"
                + " refused",
                "2:usage or configuration error"})
public final class ReplayCli extends ContextCommand {
    static final String COMMAND = "replay";
    public static final int USAGE = CommandLines.USAGE;

    @Mixin
    private ProjectDays days;
    @Option(names = "--include-refused", description = "also re-send chunks the endpoint refused for good before"
            + " (e.g. after fixing what it refused them for)")
    private boolean includeRefused;

    /** Runs the command and returns the process exit code; {@code args} excludes the command name. */
    public static int run(List<String> args, PrintStream out, PrintStream err) {
        return CommandLines.execute(new ReplayCli(), args, out, err);
    }

    @Override
    void checkOptions() {
        days.check();
    }

    @Override
    int run(ApplicationContext context, PrintWriter out, PrintWriter err) {
        if (context.getProperty("relay.otlp.endpoint", String.class).filter(s -> !s.isBlank()).isEmpty()) {
            err.println("replay: relay.otlp.endpoint (env RELAY_OTLP_ENDPOINT) is not set: there is nothing to"
                    + " replay to");
            return USAGE;
        }
        try {
            // chunks archived but not derived (a relay stopped inside their link window) get their OTLP form first
            UnderivedSearch.ReplayDerivations derived = context.getBean(UnderivedSearch.class)
                    .deriveForReplay(days.projectId(), days.from(), days.to());
            if (derived.failed() > 0) {
                err.println("replay: " + derived.failed() + " chunk(s) could not be derived (the relay failed on them,"
                        + " counted as internal_error and logged); their Sentry forms stay archived");
            }
            ReplayCommand replay = context.getBean(ReplayCommand.class);
            ReplayPlan plan = replay.plan(days.projectId(), days.from(), days.to(), includeRefused);
            plan.warning().ifPresent(warning -> {
                err.println("replay: warning: " + warning);
                err.flush();
            });
            ReplaySummary summary = replay.replay(plan);
            out.println(summary.describe());
            summary.refusals().forEach(refusal -> err.println("replay: refused for good: " + refusal));
            summary.failures().forEach(failure -> err.println("replay: not delivered: " + failure));
            return summary.complete() && derived.failed() == 0 ? OK : FAILED;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("replay: interrupted; chunks not delivered yet stay for the next replay");
            return FAILED;
        }
    }
}
