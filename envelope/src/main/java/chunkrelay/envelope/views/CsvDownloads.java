package chunkrelay.envelope.views;

import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpResponse;

import java.nio.charset.StandardCharsets;

/**
 * The tables a question answers as JSON or, with {@code format=csv}, as a CSV download named after what it holds and
 * its range, as the range's profile export is named ({@code functions-1-20261122T020000Z-20261122T030000Z.csv}).
 */
public final class CsvDownloads {
    private CsvDownloads() {
    }

    /** Whether {@code format} asks for CSV; absent, blank or {@code json} is JSON, anything else a 400. */
    public static boolean asked(String format) {
        boolean csv = "csv".equalsIgnoreCase(format);
        if (!csv && format != null && !format.isBlank() && !format.equalsIgnoreCase("json")) {
            throw ViewQuery.bad("format must be json or csv, got '" + format + "'");
        }
        return csv;
    }

    /** The CSV as a download of the query's range, named {@code {what}-{project}-{from}-{to}.csv}. */
    public static HttpResponse<byte[]> of(String what, ViewQuery query, String csv) {
        String profileName = ProfileViews.fileName(query, ExportFormat.PPROF);
        String name = what + profileName.substring("profile".length(),
                profileName.length() - ExportFormat.PPROF.suffix().length()) + "csv";
        return HttpResponse.ok(csv.getBytes(StandardCharsets.UTF_8))
                .contentType("text/csv; charset=utf-8")
                .header(HttpHeaders.CONTENT_DISPOSITION, "attachment; filename=\"" + name + "\"");
    }
}
