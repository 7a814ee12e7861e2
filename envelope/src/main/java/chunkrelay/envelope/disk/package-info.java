/**
 * The disk guard of the embedded store: below its minimum of free disk the relay refuses what it would write there, and
 * says so in readiness. Uses {@code archive}, {@code errors} and {@code telemetry}.
 */
package chunkrelay.envelope.disk;
