/**
 * Operations: health indicators, metrics meters and filters, and the start-up summary line. Reads {@code auth},
 * {@code pipeline} and {@code upstream} settings; nothing imports it.
 */
package chunkrelay.envelope.ops;
