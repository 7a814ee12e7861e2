/**
 * The OTLP form of each archived chunk, derived once its link window has passed: the chunks waiting by clock time,
 * their translation with the spans seen, the archive write and the hand-off to forwarding, and retries. Uses
 * {@code archive}, {@code auth}, {@code forward}, {@code links}, {@code rollups}, {@code schedule} and
 * {@code telemetry}.
 */
package chunkrelay.envelope.derivation;
