/**
 * The envelope endpoint: the controller, content decoding, Relay's envelope wire format, request limits and the
 * chunk memory budget. Uses {@code auth}, {@code disk}, {@code links}, {@code pipeline}, {@code upstream},
 * {@code schedule} and {@code errors}; nothing imports it.
 */
package chunkrelay.envelope.ingest;
