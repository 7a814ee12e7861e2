/**
 * The chunk path after an envelope is read, up to the 200: validation and normalisation, duplicate suppression, the
 * Sentry form and its index entry in the archive, then the hand-off to derivation. Uses {@code health},
 * {@code archive}, {@code derivation}, {@code recovery}, {@code schedule} and {@code telemetry}.
 */
package chunkrelay.envelope.pipeline;
