/**
 * Background work kept on the relay's one {@link java.time.Clock}, so that tests move a test clock instead of waiting.
 * A package of its own because {@code upstream}, {@code forward} and {@code rollups} all use it, and none of them
 * should depend on another for it. Uses no other package of the relay.
 */
package chunkrelay.envelope.schedule;
