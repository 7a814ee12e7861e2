package chunkrelay.envelope.views;

import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * {@code GET /}: the flame-graph page, one hand-written HTML file in the jar (no CDN, no build step). It lists a
 * project's chunks in a time range (the newest chunks when the last hour has none), draws the range's timeline (drag
 * to narrow), its flame graph (all threads or one; a frame's full name, file, samples and share under the pointer),
 * the traces with linked samples (click to filter the flame graph), a differential flame graph of two releases or
 * ranges, and downloads the exports.
 */
@Controller
public class ProfileViewsPage {
    private final byte[] page;

    public ProfileViewsPage() {
        try (InputStream in = ProfileViewsPage.class.getResourceAsStream("/views/index.html")) {
            if (in == null) {
                throw new IllegalStateException("views/index.html is missing from the jar");
            }
            this.page = in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Get(produces = MediaType.TEXT_HTML)
    public HttpResponse<byte[]> page() {
        return HttpResponse.ok(page).header("Content-Security-Policy",
                "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self' blob: data:")
                .header("X-Frame-Options", "DENY");
    }
}
