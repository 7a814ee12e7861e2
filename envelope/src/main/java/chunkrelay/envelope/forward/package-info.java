/**
 * OTLP forwarding wiring, delivery and replay markers in the bucket, the replay command, and the recovery pass that
 * delivers what no replica did. Depends on no other package of the relay.
 */
package chunkrelay.envelope.forward;
