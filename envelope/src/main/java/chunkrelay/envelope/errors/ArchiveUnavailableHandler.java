package chunkrelay.envelope.errors;

import chunkrelay.storage.ArchiveUnavailableException;
import io.micronaut.context.annotation.Requires;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.annotation.Produces;
import io.micronaut.http.server.exceptions.ExceptionHandler;
import jakarta.inject.Singleton;

import java.util.Map;

/**
 * A route that reads the archive (the views) while the bucket cannot be reached is answered 503 with
 * {@code Retry-After} ({@link RetryLater}), in Relay's error shape: the outage is the store's, not a bug of the relay.
 */
@Produces
@Singleton
@Requires(classes = {ExceptionHandler.class})
public class ArchiveUnavailableHandler
        implements ExceptionHandler<ArchiveUnavailableException, HttpResponse<Map<String, Object>>> {
    private final RetryLater retryLater;

    public ArchiveUnavailableHandler(RetryLater retryLater) {
        this.retryLater = retryLater;
    }

    @Override
    public HttpResponse<Map<String, Object>> handle(HttpRequest request, ArchiveUnavailableException exception) {
        return RelayErrorHandler.response(retryLater.unavailable("archive unavailable", exception.getMessage()));
    }
}
