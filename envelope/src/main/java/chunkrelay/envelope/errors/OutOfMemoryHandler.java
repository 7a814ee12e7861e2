package chunkrelay.envelope.errors;

import chunkrelay.envelope.telemetry.RelayMeter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.annotation.Requires;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.annotation.Produces;
import io.micronaut.http.server.exceptions.ExceptionHandler;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A heap too small for the work in flight is the relay's condition, not a bug and not the client's fault: the
 * request is answered 503 with {@code Retry-After} ({@link RetryLater}; the SDK retries), counted, and logged once
 * with the heap size; the relay stays up, since the memory of the failed request is garbage as soon as it is
 * answered.
 */
@Produces
@Singleton
@Requires(classes = {ExceptionHandler.class})
public class OutOfMemoryHandler implements ExceptionHandler<OutOfMemoryError, HttpResponse<Map<String, Object>>> {
    private static final Logger LOG = LoggerFactory.getLogger(OutOfMemoryHandler.class);

    private final MeterRegistry meters;
    private final RetryLater retryLater;
    private final AtomicBoolean logged = new AtomicBoolean();

    public OutOfMemoryHandler(MeterRegistry meters, RetryLater retryLater) {
        this.meters = meters;
        this.retryLater = retryLater;
    }

    @Override
    public HttpResponse<Map<String, Object>> handle(HttpRequest request, OutOfMemoryError error) {
        RelayMeter.OUT_OF_MEMORY.counter(meters).increment();
        if (logged.compareAndSet(false, true)) {
            LOG.error("out of memory handling {} {} with a maximum heap of {} MiB; answered 503. Give the relay a "
                            + "larger heap or lower relay.limits.max-buffered-chunk-bytes (logged once)",
                    request.getMethod(), request.getPath(), Runtime.getRuntime().maxMemory() >> 20, error);
        }
        return RelayErrorHandler.response(retryLater.cannotQueue("the relay ran out of memory; retry later"));
    }
}
