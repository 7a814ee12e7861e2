/**
 * Telemetry declared once: every meter the relay registers, with its kind, unit, tags and meaning
 * ({@link chunkrelay.envelope.telemetry.RelayMeter}). Every package registers its meters through it. Uses no other
 * package of the relay.
 */
package chunkrelay.envelope.telemetry;
