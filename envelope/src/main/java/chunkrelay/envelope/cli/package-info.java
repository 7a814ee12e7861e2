/**
 * The command lines ({@code replay}, {@code reindex}, {@code export}): picocli options over the relay's beans in an
 * application context without an HTTP server. Uses {@code errors}, {@code health}, {@code recovery}, {@code rollups} and
 * {@code views}.
 */
package chunkrelay.envelope.cli;
