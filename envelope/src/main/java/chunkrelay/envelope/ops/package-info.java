/**
 * Operations: health indicators, metrics meters and filters, and the start-up summary line. Reads {@code archive},
 * {@code auth}, {@code disk}, {@code pipeline}, {@code upstream} and {@code views} settings; nothing imports it.
 */
package chunkrelay.envelope.ops;
