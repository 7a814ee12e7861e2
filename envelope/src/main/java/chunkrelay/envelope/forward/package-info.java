/**
 * OTLP forwarding: the exporter's wiring from configuration, and the delivery and replay markers it leaves. Uses
 * {@code schedule}.
 */
package chunkrelay.envelope.forward;
