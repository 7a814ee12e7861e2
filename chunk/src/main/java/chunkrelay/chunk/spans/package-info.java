/**
 * Sentry's tracing items ({@code transaction} events and {@code span} items) read down to what links profile
 * samples to spans: ids, times, profiler id and thread; plain Java, no HTTP.
 */
package chunkrelay.chunk.spans;
