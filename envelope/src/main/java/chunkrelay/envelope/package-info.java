/**
 * The relay application: the Micronaut entry point, which hands a command line to {@code cli}, and the one clock.
 * Each sub-package is one concern; docs/how-it-works.md lists them in the order their dependencies point.
 */
package chunkrelay.envelope;
