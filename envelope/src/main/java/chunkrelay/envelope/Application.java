package chunkrelay.envelope;

import chunkrelay.envelope.cli.CommandLines;
import io.micronaut.runtime.Micronaut;

import java.util.OptionalInt;

/**
 * Runs the relay, or with {@code replay}, {@code reindex} or {@code export} as first argument that command
 * ({@link CommandLines}; {@code --help} prints its options), which exits with its own code.
 */
public class Application {
    public static void main(String[] args) {
        OptionalInt exit = CommandLines.run(args, System.out, System.err);
        if (exit.isPresent()) {
            System.exit(exit.getAsInt());
        }
        Micronaut.run(Application.class, args);
    }
}
