package chunkrelay.envelope.cli;

import chunkrelay.storage.ArchiveUnavailableException;
import io.micronaut.context.ApplicationContext;
import io.micronaut.context.exceptions.BeanInstantiationException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.concurrent.Callable;

/**
 * The skeleton of every command line: its {@code --help} (listed last) and exit-code heading, its options checked
 * before anything is read, then its work in an application context with the relay's configuration
 * ({@link CommandLines#context()}), where a configuration error exits with {@link CommandLines#USAGE} and an archive
 * that cannot be reached with {@link #FAILED}, each named on stderr after the command.
 */
@Command(sortOptions = false, exitCodeListHeading = "%nExit codes:%n")
abstract class ContextCommand implements Callable<Integer> {
    static final int OK = 0;
    /** Exit code of work that could not be done (the archive or a file unreachable, chunks not delivered). */
    static final int FAILED = 1;

    @Spec
    private CommandSpec spec;
    @Option(names = {"-h", "--help"}, usageHelp = true, order = Integer.MAX_VALUE,
            description = "print this help and exit")
    private boolean help;

    @Override
    public final Integer call() {
        checkOptions();
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        String name = spec.name();
        try (ApplicationContext context = CommandLines.context()) {
            return run(context, out, err);
        } catch (BeanInstantiationException e) {
            err.println(name + ": configuration error: " + CommandLines.rootMessage(e));
            return CommandLines.USAGE;
        } catch (ArchiveUnavailableException e) {
            err.println(name + ": the archive is not reachable: " + e.getMessage());
            return FAILED;
        }
    }

    /** Checks what the options say together, before the context starts; a refusal is a {@code ParameterException}. */
    void checkOptions() {
    }

    /** The command's work with the relay's beans; returns the exit code. */
    abstract int run(ApplicationContext context, PrintWriter out, PrintWriter err);

    /** For a refusal of what the options say, which picocli prints with the synopsis. */
    CommandSpec spec() {
        return spec;
    }
}
