/** OTLP forwarding: the exporter's wiring from configuration, and the delivery and replay markers it leaves. */
package chunkrelay.envelope.forward;
