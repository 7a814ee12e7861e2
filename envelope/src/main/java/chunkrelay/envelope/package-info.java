/**
 * The relay application: the Micronaut entry point and the replay and export command lines. Each sub-package is one
 * concern; {@code ingest} is the top, {@code errors} and {@code archive} the bottom, and no sub-package imports one
 * that depends on it.
 */
package chunkrelay.envelope;
