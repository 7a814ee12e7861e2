/**
 * Looking at what was archived: the query API over the bucket (profiles, traces, diffs, timelines), the exports (pprof,
 * speedscope, collapsed stacks, OTLP), the page, their access rules, and the {@code export} command line's view code.
 * Uses {@code errors}, {@code rollups} and {@code schedule}.
 */
package chunkrelay.envelope.views;
