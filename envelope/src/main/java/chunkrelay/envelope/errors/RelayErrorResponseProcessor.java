package chunkrelay.envelope.errors;

import io.micronaut.context.annotation.Primary;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.MediaType;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.server.exceptions.response.Error;
import io.micronaut.http.server.exceptions.response.ErrorContext;
import io.micronaut.http.server.exceptions.response.ErrorResponseProcessor;
import jakarta.inject.Singleton;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The errors Micronaut answers by itself (no such route, method not allowed, unreadable request, ...) in Relay's
 * shape too, so no answer of the relay carries the framework's own error body: {@code detail} is the status's
 * reason in lower case, {@code causes} the framework's messages.
 */
@Primary
@Singleton
public class RelayErrorResponseProcessor implements ErrorResponseProcessor<Map<String, Object>> {

    @Override
    public MutableHttpResponse<Map<String, Object>> processResponse(ErrorContext context,
                                                                    MutableHttpResponse<?> response) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("detail", response.getStatus().getReason().toLowerCase(Locale.ROOT));
        List<String> causes = context.getErrors().stream().map(Error::getMessage).toList();
        if (!causes.isEmpty()) {
            body.put("causes", causes);
        }
        return response.header(HttpHeaders.CONNECTION, "close").contentType(MediaType.APPLICATION_JSON_TYPE)
                .body(body);
    }
}
