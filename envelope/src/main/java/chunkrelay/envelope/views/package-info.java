/**
 * Looking at what was archived: the query API over the bucket, the exports (pprof, speedscope, collapsed stacks,
 * OTLP), the flame-graph page, their access rules, and the {@code export} command line. Uses {@code errors}.
 */
package chunkrelay.envelope.views;
