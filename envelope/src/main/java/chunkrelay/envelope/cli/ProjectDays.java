package chunkrelay.envelope.cli;

import chunkrelay.storage.ProjectIds;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

import java.time.LocalDate;
import java.time.format.DateTimeParseException;

/**
 * The options of a command over a project's archived days ({@code replay}, {@code reindex}): {@code --project},
 * {@code --from} and {@code --to}, UTC days as the archive files chunks under.
 */
final class ProjectDays {
    @Spec(Spec.Target.MIXEE)
    private CommandSpec spec;
    @Option(names = "--project", required = true, paramLabel = "<project id>", converter = ProjectId.class,
            description = "the numeric project id")
    private String projectId;
    @Option(names = "--from", required = true, paramLabel = "<yyyy-mm-dd>", converter = Day.class,
            description = "the first UTC day")
    private LocalDate from;
    @Option(names = "--to", required = true, paramLabel = "<yyyy-mm-dd>", converter = Day.class,
            description = "the last UTC day, included")
    private LocalDate to;

    /** Refuses a range whose first day is after its last, as a usage error. */
    void check() {
        if (from.isAfter(to)) {
            throw new ParameterException(spec.commandLine(), "--from " + from + " is after --to " + to);
        }
    }

    String projectId() {
        return projectId;
    }

    LocalDate from() {
        return from;
    }

    LocalDate to() {
        return to;
    }

    /** A numeric project id, as in the envelope endpoint's path. */
    static final class ProjectId implements ITypeConverter<String> {
        @Override
        public String convert(String value) {
            String trimmed = value.trim();
            if (ProjectIds.parse(trimmed).isEmpty()) {
                throw new TypeConversionException("'" + value + "' is not a numeric project id");
            }
            return trimmed;
        }
    }

    /** A UTC day as the archive files chunks under, yyyy-mm-dd. */
    static final class Day implements ITypeConverter<LocalDate> {
        @Override
        public LocalDate convert(String value) {
            try {
                return LocalDate.parse(value.trim());
            } catch (DateTimeParseException e) {
                throw new TypeConversionException("'" + value + "' is not a day as yyyy-mm-dd");
            }
        }
    }
}
