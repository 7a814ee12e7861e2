package chunkrelay.envelope.errors;


import io.micronaut.context.annotation.Requires;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.Produces;
import io.micronaut.http.server.exceptions.ExceptionHandler;
import jakarta.inject.Singleton;

import java.util.LinkedHashMap;
import java.util.Map;

/** Renders a {@link RelayError} as Relay does: {@code {"detail": "...", "causes": [...]}}, causes omitted when empty. */
@Produces
@Singleton
@Requires(classes = {RelayError.class, ExceptionHandler.class})
public class RelayErrorHandler implements ExceptionHandler<RelayError, HttpResponse<Map<String, Object>>> {

    @Override
    public HttpResponse<Map<String, Object>> handle(HttpRequest request, RelayError error) {
        return response(error);
    }

    /** The error as Relay answers it: {@code {"detail": ..., "causes": [...]}}, its headers, the connection closed. */
    public static HttpResponse<Map<String, Object>> response(RelayError error) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("detail", error.detail());
        if (!error.causes().isEmpty()) {
            body.put("causes", error.causes());
        }
        // the body may be partly unread: close the connection rather than leave the client blocked sending it
        MutableHttpResponse<Map<String, Object>> response = HttpResponse.<Map<String, Object>>status(error.status())
                .header(HttpHeaders.CONNECTION, "close");
        error.headers().forEach(response::header);
        return response.body(body);
    }
}
