package chunkrelay.envelope.ops;

import chunkrelay.envelope.telemetry.RelayMeter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.ResponseFilter;
import io.micronaut.http.annotation.ServerFilter;

/**
 * Counts every answer of the envelope endpoint by HTTP status ({@link RelayMeter#ENVELOPES}), refusals from
 * the error handlers included, so a dashboard sees 2xx/4xx/5xx as the SDKs do.
 */
@ServerFilter("/api/**")
public class EnvelopeMetricsFilter {
    private final MeterRegistry meters;

    public EnvelopeMetricsFilter(MeterRegistry meters) {
        this.meters = meters;
    }

    @ResponseFilter
    public void countStatus(HttpRequest<?> request, MutableHttpResponse<?> response) {
        RelayMeter.ENVELOPES.counter(meters, Integer.toString(response.code())).increment();
    }
}
