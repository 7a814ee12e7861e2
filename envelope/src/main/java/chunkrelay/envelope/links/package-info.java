/**
 * Trace links: the spans of transactions and span items, indexed per profiler and logged to the bucket, so that profile
 * samples can link to the span that was running. Uses {@code schedule} and {@code telemetry}.
 */
package chunkrelay.envelope.links;
