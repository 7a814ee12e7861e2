package chunkrelay.envelope.views;

import chunkrelay.translate.view.FunctionTable;
import chunkrelay.translate.view.FunctionTableCsv;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.util.Set;

/**
 * The export command's function answers, the same as the query API's: {@code functions} (the whole top-functions
 * table as its JSON), {@code functions-csv} (as its CSV) and {@code regressions} (of a baseline and a comparison).
 */
public final class FunctionExport {
    /** The formats this class writes. */
    public static final Set<String> FORMATS = Set.of("functions", "functions-csv", "regressions");

    private FunctionExport() {
    }

    public static boolean handles(String format) {
        return format != null && FORMATS.contains(format);
    }

    /**
     * Writes {@code format}'s answer for the query: every function of the table (ordered by {@code sort}, those
     * matching {@code search}), or the regressions of the two sides.
     *
     * @throws chunkrelay.envelope.errors.RelayError for a bad sort, regressions without both sides, or a malformed
     *                                               side
     */
    public static void write(String format, ViewQuery query, String sort, String search, String baseline,
                             String comparison, FunctionQuestions questions, ObjectMapper json, OutputStream out)
            throws IOException {
        if (format.equals("regressions")) {
            json.writeValue(out, questions.regressions(DiffSide.parse("--baseline", baseline, query),
                    DiffSide.parse("--comparison", comparison, query)));
            return;
        }
        FunctionTable.Order order = FunctionQuestions.order(sort);
        FunctionTable.Page page = questions.table(query).page(order, search, 0, Integer.MAX_VALUE);
        if (format.equals("functions")) {
            json.writeValue(out, FunctionQuestions.TableAnswer.of(query, order, search, page));
        } else {
            FunctionTableCsv.write(page.rows(), new OutputStreamWriter(out, StandardCharsets.UTF_8));
        }
    }
}
