/**
 * The relay application: the Micronaut entry point and the one clock. Uses {@code cli} (the entry point hands a
 * command line to it). Each sub-package is one concern; docs/how-it-works.md lists them in the order their
 * dependencies point.
 */
package chunkrelay.envelope;
