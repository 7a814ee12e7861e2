package chunkrelay.envelope.views;

import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.OutputStream;
import java.util.Set;

/**
 * The export command's JSON answers, the same as the query API's: {@code traces} (the trace list of the range) and
 * {@code diff} (the differential profile of a baseline and a comparison).
 */
public final class QuestionExport {
    /** The formats this class writes, beside {@link ExportFormat}'s profiles. */
    public static final Set<String> FORMATS = Set.of("traces", "diff");

    private QuestionExport() {
    }

    public static boolean handles(String format) {
        return format != null && FORMATS.contains(format);
    }

    /**
     * Writes {@code format}'s answer for the query.
     *
     * @throws chunkrelay.envelope.errors.RelayError for a diff without both sides, or a malformed side
     */
    public static void write(String format, ViewQuery query, String baseline, String comparison,
                             ProfileQuestions questions, ObjectMapper json, OutputStream out) throws IOException {
        Object answer = format.equals("traces") ? questions.traces(query)
                : questions.diff(DiffSide.parse("--baseline", baseline, query),
                        DiffSide.parse("--comparison", comparison, query));
        json.writeValue(out, answer);
    }
}
