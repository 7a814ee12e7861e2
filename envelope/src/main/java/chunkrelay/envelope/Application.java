package chunkrelay.envelope;

import io.micronaut.runtime.Micronaut;

import java.util.Arrays;

/**
 * Runs the relay, or with {@code replay}, {@code reindex} or {@code export} as first argument that command
 * ({@link ReplayCli}, {@link ReindexCli}, {@link ExportCli}, parsed by picocli; {@code --help} prints their options), which exits with its own code.
 */
public class Application {
    public static void main(String[] args) {
        if (args.length > 0 && args[0].equals(ReplayCli.COMMAND)) {
            System.exit(ReplayCli.run(Arrays.asList(args).subList(1, args.length), System.out, System.err));
        }
        if (args.length > 0 && args[0].equals(ReindexCli.COMMAND)) {
            System.exit(ReindexCli.run(Arrays.asList(args).subList(1, args.length), System.out, System.err));
        }
        if (args.length > 0 && args[0].equals(ExportCli.COMMAND)) {
            System.exit(ExportCli.run(Arrays.asList(args).subList(1, args.length), System.out, System.err));
        }
        Micronaut.run(Application.class, args);
    }
}
