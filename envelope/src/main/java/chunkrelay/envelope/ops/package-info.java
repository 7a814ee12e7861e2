/**
 * Operations: health indicators, metrics meters and filters, and the start-up summary line. Uses {@code archive},
 * {@code auth}, {@code disk}, {@code ingest}, {@code upstream} and {@code views} (their settings and state).
 */
package chunkrelay.envelope.ops;
