/**
 * OTLP forwarding wiring, delivery and replay markers in the bucket, the replay command, and the recovery pass that
 * delivers what no replica did. Uses {@code schedule} (the pass's runs on the clock).
 */
package chunkrelay.envelope.forward;
