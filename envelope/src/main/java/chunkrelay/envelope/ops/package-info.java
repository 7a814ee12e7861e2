/**
 * Operations: health indicators, metrics meters and filters, and the start-up summary line. Uses {@code archive},
 * {@code auth}, {@code disk}, {@code ingest}, {@code telemetry}, {@code upstream} and {@code views}.
 */
package chunkrelay.envelope.ops;
