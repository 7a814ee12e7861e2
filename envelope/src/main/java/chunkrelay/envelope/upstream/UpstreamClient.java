package chunkrelay.envelope.upstream;

import chunkrelay.envelope.telemetry.RelayMeter;
import chunkrelay.storage.ProjectIds;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;

/**
 * One attempt to hand an envelope to the upstream Sentry: the request as the SDK would have sent it (auth with the
 * SDK's key and client, its user agent, origin and forwarded-for) and what the answer means. No answer, 502, 503 and
 * 504 are the upstream being down, worth another attempt; every other answer is final (a 429's limits are cached
 * for the key). Retrying, spooling and giving up are the callers'.
 */
final class UpstreamClient {
    private static final Logger LOG = LoggerFactory.getLogger(UpstreamClient.class);

    private final UpstreamConfig config;
    private final UpstreamRateLimits rateLimits;
    private final MeterRegistry meters;
    private final Clock clock;
    private final HttpClient http;
    private volatile boolean upstreamDown;

    UpstreamClient(UpstreamConfig config, HttpClient http, UpstreamRateLimits rateLimits, MeterRegistry meters,
                   Clock clock) {
        this.config = config;
        this.http = http;
        this.rateLimits = rateLimits;
        this.meters = meters;
        this.clock = clock;
    }

    /** One request; true when the upstream took the envelope or refused it for good, false to retry. */
    boolean attempt(UpstreamEnvelope envelope) {
        byte[] body = envelope.wire(config.base(), clock.instant());
        HttpRequest.Builder request = HttpRequest.newBuilder(
                        URI.create(config.base() + "/api/" + ProjectIds.format(envelope.projectId()) + "/envelope/"))
                .timeout(config.timeoutFor(body.length))
                .header("Content-Type", "application/x-sentry-envelope")
                .header("X-Sentry-Auth", "Sentry sentry_key=" + envelope.publicKey() + ", sentry_version=7"
                        + (envelope.sentryClient() == null ? "" : ", sentry_client=" + envelope.sentryClient()))
                .POST(HttpRequest.BodyPublishers.ofByteArray(body));
        if (envelope.userAgent() != null) {
            request.header("User-Agent", envelope.userAgent());
        }
        if (envelope.origin() != null) {
            request.header("Origin", envelope.origin());
        }
        if (envelope.forwardedFor() != null) {
            request.header("X-Forwarded-For", envelope.forwardedFor());
        }
        HttpResponse<Void> response;
        try {
            response = http.send(request.build(), HttpResponse.BodyHandlers.discarding());
        } catch (IOException e) {
            markDown("no answer: " + e);
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        int status = response.statusCode();
        if (status == 502 || status == 503 || status == 504) {
            markDown("HTTP " + status);
            return false;
        }
        upstreamDown = false;
        if (status / 100 == 2) {
            countEnvelope("delivered");
        } else if (status == 429) {
            rateLimits.record(envelope.publicKey(),
                    String.join(",", response.headers().allValues(UpstreamRateLimits.HEADER)),
                    response.headers().firstValue("Retry-After").orElse(null), clock.instant());
            countEnvelope("upstream_rate_limited");
        } else {
            countEnvelope("refused_" + status / 100 + "xx");
            LOG.warn("upstream refused an envelope of project {}: HTTP {}", envelope.projectId(), status);
        }
        return true;
    }

    /** Logs an outage once, when it starts, not on every attempt during it. */
    private void markDown(String why) {
        if (!upstreamDown) {
            LOG.warn("upstream {} unavailable ({}); retrying, spooling what the queue cannot hold", config.base(),
                    why);
        }
        upstreamDown = true;
    }

    private void countEnvelope(String outcome) {
        RelayMeter.UPSTREAM_ENVELOPES.counter(meters, outcome).increment();
    }
}
