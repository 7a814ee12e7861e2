package chunkrelay.envelope.cli;

import chunkrelay.envelope.errors.RelayError;
import chunkrelay.envelope.health.HealthQuestions;
import chunkrelay.envelope.views.ExportFormat;
import chunkrelay.envelope.views.FunctionExport;
import chunkrelay.envelope.views.FunctionQuestions;
import chunkrelay.envelope.views.ProfileQuestions;
import chunkrelay.envelope.views.ProfileViews;
import chunkrelay.envelope.views.QuestionExport;
import chunkrelay.envelope.views.ViewQuery;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micronaut.context.ApplicationContext;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.TypeConversionException;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

/**
 * {@code java -jar envelope.jar export --project 1 --from <time> --to <time> --format pprof --out profile.pb.gz}
 * (plus {@code --profiler-id}, {@code --thread-id}, {@code --trace-id}, {@code --span-id}, {@code --platform},
 * {@code --release}, {@code --environment}): the query API's {@code profile} export, through the same code, from the
 * relay's configured archive and without a server; {@code --format traces} and {@code --format diff --baseline …
 * --comparison …} write the API's {@code traces} and {@code diff} JSON, {@code --format functions} (or
 * {@code functions-csv}, with {@code --sort} and {@code --search}) the whole top-functions table and
 * {@code --format regressions --baseline … --comparison …} the regressions, {@code --format health} each SDK's ingest
 * health over the range as the API's JSON. Exit code 0 when the file is written, 1 when
 * the archive cannot be read, 2 for a usage or configuration error.
 */
@Command(name = ExportCli.COMMAND,
        description = {"Writes the merged profile of the project's archived chunks, as the query API's profile export"
                + " does, from the archive of the relay's relay.storage.* configuration.",
                "Times are RFC 3339 (2026-11-22T02:00:00Z) or Unix seconds; the range defaults to the last hour."},
        exitCodeList = {"0:the file is written", "1:the archive or the file could not be read or written",
                "2:usage or configuration error"})
public final class ExportCli extends ContextCommand {
    static final String COMMAND = "export";
    /** The health answer's format: the query API's JSON, for the range only. */
    static final String HEALTH = "health";

    @Option(names = "--project", required = true, paramLabel = "<id>", description = "the numeric project id")
    private String project;
    @Option(names = "--from", paramLabel = "<time>", description = "the start of the range, inclusive"
            + " (default: an hour before --to)")
    private String from;
    @Option(names = "--to", paramLabel = "<time>", description = "the end of the range, exclusive (default: now)")
    private String to;
    @Option(names = "--format", paramLabel = "<format>", defaultValue = "pprof", converter = Format.class,
            description = "pprof, speedscope, collapsed or otlp (a profile); traces (the traces with linked samples),"
                    + " diff (the differential profile of --baseline and --comparison), functions (every function's"
                    + " self and total samples), regressions (of --baseline and --comparison) or health (each SDK's"
                    + " ingest health in the range), as the query API's JSON; functions-csv, the functions as CSV (default: ${DEFAULT-VALUE})")
    private String format;
    @Option(names = "--out", required = true, paramLabel = "<file>", description = "the file to write")
    private Path file;
    @Option(names = "--profiler-id", paramLabel = "<hex>", description = "only this profiler's chunks")
    private String profilerId;
    @Option(names = "--thread-id", paramLabel = "<id>", description = "only this thread's samples")
    private String threadId;
    @Option(names = "--trace-id", paramLabel = "<hex>", description = "only samples linked to a span of this trace")
    private String traceId;
    @Option(names = "--span-id", paramLabel = "<hex>", description = "only samples linked to this span")
    private String spanId;
    @Option(names = "--platform", paramLabel = "<name>", description = "only chunks of this platform")
    private String platform;
    @Option(names = "--release", paramLabel = "<release>", description = "only chunks of this release")
    private String release;
    @Option(names = "--environment", paramLabel = "<name>", description = "only chunks of this environment")
    private String environment;
    @Option(names = "--baseline", paramLabel = "<side>", description = "with --format diff: <from>/<to> or"
            + " release:<name>")
    private String baseline;
    @Option(names = "--comparison", paramLabel = "<side>", description = "with --format diff: <from>/<to> or"
            + " release:<name>")
    private String comparison;
    @Option(names = "--sort", paramLabel = "<self|total>", description = "with --format functions or"
            + " functions-csv: the order, the largest first (default: self)")
    private String sort;
    @Option(names = "--search", paramLabel = "<text>", description = "with --format functions or functions-csv:"
            + " only functions whose name or file contains it")
    private String search;

    /** Runs the command and returns the process exit code; {@code args} excludes the command name. */
    public static int run(List<String> args, PrintStream out, PrintStream err) {
        return CommandLines.execute(new ExportCli(), args, out, err);
    }

    @Override
    int run(ApplicationContext context, PrintWriter out, PrintWriter err) {
        // a range given without an end ends now on the relay's clock
        ViewQuery query = query(context.getBean(Clock.class).instant());
        ProfileViews views = context.getBean(ProfileViews.class);
        try {
            try (OutputStream stream = Files.newOutputStream(file)) {
                if (format.equals(HEALTH)) {
                    context.getBean(ObjectMapper.class).writeValue(stream, context.getBean(HealthQuestions.class)
                            .answer(query.project(), query.from(), query.to()));
                } else if (FunctionExport.handles(format)) {
                    FunctionExport.write(format, query, sort, search, baseline, comparison,
                            context.getBean(FunctionQuestions.class), context.getBean(ObjectMapper.class), stream);
                } else if (QuestionExport.handles(format)) {
                    QuestionExport.write(format, query, baseline, comparison, context.getBean(ProfileQuestions.class),
                            context.getBean(ObjectMapper.class), stream);
                } else {
                    views.export(query, ExportFormat.of(format), stream);
                }
            }
            out.println("export: wrote " + file + " (" + Files.size(file) + " bytes, " + format
                    + ", project " + query.project() + ", " + query.from() + " to " + query.to() + ")");
            return OK;
        } catch (RelayError e) {
            err.println("export: " + e.getMessage());
            return CommandLines.USAGE;
        } catch (IOException e) {
            err.println("export: " + e.getMessage());
            return FAILED;
        }
    }

    private ViewQuery query(Instant now) {
        try {
            return ViewQuery.parse(project, from, to, profilerId, platform, release, threadId, traceId, spanId, now)
                    .withEnvironment(environment);
        } catch (RelayError e) {
            throw new ParameterException(spec().commandLine(), e.getMessage());
        }
    }

    /** A format name as the query API takes it, in any case: a profile format, or one of the JSON answers. */
    static final class Format implements ITypeConverter<String> {
        @Override
        public String convert(String value) {
            String name = value.toLowerCase(Locale.ROOT);
            if (QuestionExport.handles(name) || FunctionExport.handles(name) || name.equals(HEALTH)) {
                return name;
            }
            try {
                return ExportFormat.of(name).name().toLowerCase(Locale.ROOT);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException("format must be pprof, speedscope, collapsed, otlp, traces, diff,"
                        + " functions, functions-csv, regressions or health, got '" + value + "'");
            }
        }
    }
}
