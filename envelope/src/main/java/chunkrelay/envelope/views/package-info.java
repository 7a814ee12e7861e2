/**
 * Looking at what was archived: the query API over the bucket (profiles, traces, diffs, timelines), the exports
 * (pprof, speedscope, collapsed stacks, OTLP), the page, their access rules, and the {@code export} command line's
 * view code. Uses {@code errors} and {@code rollups} (the time index and rollups the queries read).
 */
package chunkrelay.envelope.views;
