/**
 * OTLP forwarding: the exporter's wiring from configuration, and the delivery and replay markers it leaves. Uses no
 * other package of the relay.
 */
package chunkrelay.envelope.forward;
