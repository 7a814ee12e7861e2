package chunkrelay.envelope.errors;

import chunkrelay.envelope.telemetry.RelayMeter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.annotation.Requires;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.annotation.Produces;
import io.micronaut.http.server.exceptions.ExceptionHandler;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Map;

/**
 * A failure no rule anticipated is a bug of the relay, not of the input: logged with its stack trace and
 * answered 500 in Relay's error shape ({@code {"detail": "internal error"}}), counted, so the client retries.
 */
@Produces
@Singleton
@Requires(classes = {ExceptionHandler.class})
public class UnexpectedErrorHandler implements ExceptionHandler<Exception, HttpResponse<Map<String, Object>>> {
    private static final Logger LOG = LoggerFactory.getLogger(UnexpectedErrorHandler.class);

    private final MeterRegistry meters;

    public UnexpectedErrorHandler(MeterRegistry meters) {
        this.meters = meters;
    }

    @Override
    public HttpResponse<Map<String, Object>> handle(HttpRequest request, Exception exception) {
        RelayMeter.INTERNAL_ERRORS.counter(meters).increment();
        LOG.error("unexpected failure handling {} {}", request.getMethod(), request.getPath(), exception);
        return RelayErrorHandler.response(new RelayError(HttpStatus.INTERNAL_SERVER_ERROR, "internal error"));
    }
}
