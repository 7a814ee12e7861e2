/**
 * The envelope endpoint: the controller, content decoding, Relay's envelope wire format, request limits and the chunk
 * memory budget. Uses {@code archive}, {@code auth}, {@code disk}, {@code errors}, {@code links}, {@code pipeline},
 * {@code schedule}, {@code telemetry} and {@code upstream}.
 */
package chunkrelay.envelope.ingest;
