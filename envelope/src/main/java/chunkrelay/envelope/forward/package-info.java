/**
 * OTLP forwarding wiring, delivery and replay markers in the bucket, and the replay command. Depends on no other
 * package of the relay.
 */
package chunkrelay.envelope.forward;
