package chunkrelay.envelope.upstream;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.bind.annotation.Bindable;

import java.net.URI;
import java.time.Duration;

/**
 * Where and how items the relay does not consume go on ({@code relay.upstream}).
 *
 * @param url                  the upstream Sentry, e.g. {@code https://o123.ingest.sentry.io}; a path prefix is kept,
 *                             as in a DSN; empty (the default) means other items are counted and dropped
 * @param forwardProfileChunks profile chunks go upstream too, after they are archived
 * @param queueEnvelopes       envelopes waiting in memory; beyond it they go to the spool in the bucket
 * @param queueBytes           bytes waiting in memory; beyond it they go to the spool
 * @param maxAge               an envelope not delivered after this long is dropped (counted, reported)
 * @param connectTimeout       TCP connect timeout
 * @param requestTimeout       time for a request's answer, plus {@code timeoutPerMib} for each MiB of its body
 * @param timeoutPerMib        added to the request timeout per MiB sent
 * @param retryInitial         first wait after a network failure, 502, 503 or 504; grows by half each time
 * @param retryMax             longest wait between attempts
 * @param clientReportInterval how often the relay's own drops are reported upstream
 * @param senders              requests to the upstream in flight at once
 * @param spoolClaim           how long a relay's claim on a spooled envelope holds (renewed while it keeps trying);
 *                             an envelope whose claimant died waits one to two of these before another relay sends it
 * @param passThroughRequests  requests to the other Sentry endpoints passed on at once, each on a thread of its own;
 *                             beyond them 503 with {@code Retry-After}
 */
@ConfigurationProperties("relay.upstream")
public record UpstreamConfig(
        @Bindable(defaultValue = "") String url,
        @Bindable(defaultValue = "false") boolean forwardProfileChunks,
        @Bindable(defaultValue = "1000") int queueEnvelopes,
        @Bindable(defaultValue = "67108864") long queueBytes,
        @Bindable(defaultValue = "24h") Duration maxAge,
        @Bindable(defaultValue = "3s") Duration connectTimeout,
        @Bindable(defaultValue = "5s") Duration requestTimeout,
        @Bindable(defaultValue = "1s") Duration timeoutPerMib,
        @Bindable(defaultValue = "1s") Duration retryInitial,
        @Bindable(defaultValue = "60s") Duration retryMax,
        @Bindable(defaultValue = "5s") Duration clientReportInterval,
        @Bindable(defaultValue = "2") int senders,
        @Bindable(defaultValue = "60s") Duration spoolClaim,
        @Bindable(defaultValue = "16") int passThroughRequests) {

    public boolean enabled() {
        return url != null && !url.isBlank();
    }

    /** The upstream base without a trailing slash, path prefix kept. */
    public URI base() {
        String trimmed = url.trim();
        while (trimmed.endsWith("/")) {
            trimmed = trimmed.substring(0, trimmed.length() - 1);
        }
        return URI.create(trimmed);
    }

    /** The timeout of a request that sends {@code bytes}: large bodies need time to upload. */
    public Duration timeoutFor(long bytes) {
        return requestTimeout.plus(timeoutPerMib.multipliedBy(bytes >> 20));
    }
}
