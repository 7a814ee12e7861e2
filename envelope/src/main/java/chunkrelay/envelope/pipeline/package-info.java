/**
 * The chunk path after an envelope is read: validation, translation, duplicate suppression and archiving, then
 * hand-off to forwarding, and the OTLP forms derived after the link window. Uses {@code auth} (project settings),
 * {@code forward} and {@code links}.
 */
package chunkrelay.envelope.pipeline;
