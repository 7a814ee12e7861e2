package chunkrelay.envelope.cli;

import chunkrelay.envelope.rollups.ArchiveReindex;
import io.micronaut.context.ApplicationContext;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.util.List;

/**
 * {@code java -jar envelope.jar reindex --project <id> --from <yyyy-mm-dd> --to <yyyy-mm-dd>}: files the chunks of an
 * archive written before the index by time in it and builds their rollups ({@link ArchiveReindex}), in an
 * application context with the relay's configuration ({@code relay.storage.*}) but no HTTP server. Exit code 0 when
 * done, 1 when the archive could not be read or written, 2 for a usage or configuration error.
 */
@Command(name = ReindexCli.COMMAND,
        description = {"Files every chunk of the project whose first sample lies in the UTC days [from, to] in the"
                + " index by time and builds the rollups of their minutes, hours and days, so that the views answer"
                + " ranges of an archive written before the index.",
                "Uses the relay's relay.storage.* configuration; safe beside running relays."},
        exitCodeList = {"0:done", "1:the archive could not be read or written", "2:usage or configuration error"})
public final class ReindexCli extends ContextCommand {
    static final String COMMAND = "reindex";

    @Mixin
    private ProjectDays days;

    /** Runs the command and returns the process exit code; {@code args} excludes the command name. */
    public static int run(List<String> args, PrintStream out, PrintStream err) {
        return CommandLines.execute(new ReindexCli(), args, out, err);
    }

    @Override
    void checkOptions() {
        days.check();
    }

    @Override
    int run(ApplicationContext context, PrintWriter out, PrintWriter err) {
        ArchiveReindex reindex = context.getBean(ArchiveReindex.class);
        out.println(reindex.reindex(days.projectId(), days.from(), days.to()).describe());
        return OK;
    }
}
