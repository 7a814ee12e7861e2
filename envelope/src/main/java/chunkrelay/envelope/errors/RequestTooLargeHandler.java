package chunkrelay.envelope.errors;

import io.micronaut.context.annotation.Replaces;
import io.micronaut.context.annotation.Requires;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.annotation.Produces;
import io.micronaut.http.exceptions.ContentLengthExceededException;
import io.micronaut.http.server.exceptions.ContentLengthExceededHandler;
import io.micronaut.http.server.exceptions.ExceptionHandler;
import jakarta.inject.Singleton;

import java.util.Map;

/** A body over the server's wire limit ({@code micronaut.server.max-request-size}) gets Relay's 413 body. */
@Produces
@Singleton
@Replaces(ContentLengthExceededHandler.class)
@Requires(classes = {ContentLengthExceededException.class, ExceptionHandler.class})
public class RequestTooLargeHandler
        implements ExceptionHandler<ContentLengthExceededException, HttpResponse<Map<String, Object>>> {

    @Override
    public HttpResponse<Map<String, Object>> handle(HttpRequest request, ContentLengthExceededException exception) {
        return RelayErrorHandler.response(RelayError.bodyTooLarge());
    }
}
