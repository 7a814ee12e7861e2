/**
 * Relay's error answers ({"detail", "causes"}) and the handlers that render every refusal in that shape. Uses no
 * other package of the relay.
 */
package chunkrelay.envelope.errors;
