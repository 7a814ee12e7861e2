package chunkrelay.envelope.cli;

import io.micronaut.context.ApplicationContext;
import io.micronaut.context.env.Environment;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.UnmatchedArgumentException;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalInt;

/**
 * What the command lines share: picocli parses their options and prints their generated help, a refused argument
 * prints the reason, the synopsis and a pointer to {@code --help} with exit code 2, and the relay's configuration is
 * read through an application context without an HTTP server.
 */
public final class CommandLines {
    /** Exit code of a usage or configuration error, picocli's default for invalid input too. */
    static final int USAGE = 2;

    private CommandLines() {
    }

    /**
     * Runs the command {@code args} name first ({@code replay}, {@code reindex} or {@code export}) and returns its exit
     * code, or returns empty when they name none, for the relay to run.
     */
    public static OptionalInt run(String[] args, PrintStream out, PrintStream err) {
        if (args.length == 0) {
            return OptionalInt.empty();
        }
        List<String> rest = Arrays.asList(args).subList(1, args.length);
        return switch (args[0]) {
            case ReplayCli.COMMAND -> OptionalInt.of(ReplayCli.run(rest, out, err));
            case ReindexCli.COMMAND -> OptionalInt.of(ReindexCli.run(rest, out, err));
            case ExportCli.COMMAND -> OptionalInt.of(ExportCli.run(rest, out, err));
            default -> OptionalInt.empty();
        };
    }

    /** Parses {@code args} (without the command name) into {@code command}, runs it and returns the exit code. */
    static int execute(Object command, List<String> args, PrintStream out, PrintStream err) {
        PrintWriter outWriter = new PrintWriter(out, true);
        PrintWriter errWriter = new PrintWriter(err, true);
        CommandLine line = new CommandLine(command)
                .setOut(outWriter)
                .setErr(errWriter)
                .setUsageHelpAutoWidth(true)
                .setParameterExceptionHandler(CommandLines::refuse);
        line.getCommandSpec().exitCodeOnInvalidInput(USAGE);
        int code = line.execute(args.toArray(String[]::new));
        outWriter.flush();
        errWriter.flush();
        return code;
    }

    private static int refuse(ParameterException e, String[] args) {
        CommandLine line = e.getCommandLine();
        PrintWriter err = line.getErr();
        err.println(line.getCommandName() + ": " + e.getMessage());
        UnmatchedArgumentException.printSuggestions(e, err);
        err.print(line.getHelp().fullSynopsis());
        err.println("Try '" + line.getCommandName() + " --help' for more information.");
        return line.getCommandSpec().exitCodeOnInvalidInput();
    }

    /**
     * The relay's beans and configuration ({@code relay.*}) in the {@code cli} environment, with no HTTP server: the
     * beans of background work are absent from it ({@code UpstreamForwarder}, {@code RecoveryPass}) or start it on
     * the server's start-up only ({@code ChunkDerivations}' recovery passes and heartbeats), so a command line
     * sends nothing upstream, claims nothing and returns once its own work is done.
     */
    static ApplicationContext context() {
        return ApplicationContext.builder().environments(Environment.CLI).start();
    }

    static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null) {
            root = root.getCause();
        }
        return root.getMessage();
    }
}
