package chunkrelay.translate.view;

import java.io.IOException;
import java.io.Writer;
import java.util.List;
import java.util.Locale;

/**
 * A {@link FunctionTable}'s rows as CSV (RFC 4180: a header line, fields with a comma, quote or line break quoted),
 * for spreadsheets and scripts.
 */
public final class FunctionTableCsv {
    static final String HEADER = "name,file,self_samples,total_samples,self_share,total_share,self_nanos,total_nanos";

    private FunctionTableCsv() {
    }

    public static void write(List<FunctionTable.Row> rows, Writer out) throws IOException {
        out.write(HEADER);
        out.write("\r\n");
        for (FunctionTable.Row row : rows) {
            out.write(field(row.name()) + "," + field(row.file()) + "," + row.self() + "," + row.total() + ","
                    + String.format(Locale.ROOT, "%.6f,%.6f", row.selfShare(), row.totalShare()) + ","
                    + row.selfNanos() + "," + row.totalNanos() + "\r\n");
        }
        out.flush();
    }

    private static String field(String text) {
        if (text == null) {
            return "";
        }
        if (text.indexOf(',') < 0 && text.indexOf('"') < 0 && text.indexOf('\n') < 0 && text.indexOf('\r') < 0) {
            return text;
        }
        return '"' + text.replace("\"", "\"\"") + '"';
    }
}
