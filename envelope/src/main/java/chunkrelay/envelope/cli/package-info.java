/**
 * The command lines ({@code replay}, {@code reindex}, {@code export}): picocli options over the relay's beans in an
 * application context without an HTTP server.
 */
package chunkrelay.envelope.cli;
