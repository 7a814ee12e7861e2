/**
 * Relay's error answers ({"detail", "causes"}) and the handlers that render every refusal in that shape. Uses
 * {@code telemetry}.
 */
package chunkrelay.envelope.errors;
