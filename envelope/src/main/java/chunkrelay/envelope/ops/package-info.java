/**
 * Operations: health indicators, metrics meters and filters, and the start-up summary line. Reads {@code auth} and
 * {@code pipeline} settings; nothing imports it.
 */
package chunkrelay.envelope.ops;
