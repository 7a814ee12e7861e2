/**
 * The chunk path after an envelope is read: validation, translation, duplicate suppression and archiving, then
 * hand-off to forwarding. Uses {@code auth} (project settings) and {@code forward}.
 */
package chunkrelay.envelope.pipeline;
