package chunkrelay.envelope.errors;

import chunkrelay.storage.ArchiveUnavailableException;
import io.micronaut.context.annotation.Requires;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.annotation.Produces;
import io.micronaut.http.server.exceptions.ExceptionHandler;
import jakarta.inject.Singleton;

import java.util.List;
import java.util.Map;

/**
 * A route that reads the archive (the views) while the bucket cannot be reached is answered 503 with
 * {@code Retry-After}, in Relay's error shape: the outage is the store's, not a bug of the relay.
 */
@Produces
@Singleton
@Requires(classes = {ExceptionHandler.class})
public class ArchiveUnavailableHandler
        implements ExceptionHandler<ArchiveUnavailableException, HttpResponse<Map<String, Object>>> {

    @Override
    public HttpResponse<Map<String, Object>> handle(HttpRequest request, ArchiveUnavailableException exception) {
        return RelayErrorHandler.response(new RelayError(HttpStatus.SERVICE_UNAVAILABLE, "archive unavailable",
                List.of(exception.getMessage()), Map.of(HttpHeaders.RETRY_AFTER, "10")));
    }
}
