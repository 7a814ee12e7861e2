/**
 * Passing on to an upstream Sentry everything the relay does not consume, as Relay's proxy mode does: the queue, its
 * spool in the bucket, retries, cached upstream rate limits and client reports. Uses {@code errors}, {@code schedule}
 * and {@code telemetry}.
 */
package chunkrelay.envelope.upstream;
