/**
 * The archive's index by time and its rollups: the index entries and late queue the pipeline writes, the background
 * builder that merges each settled minute, ten minutes, hour and day of a project into a rollup object, ahead of the
 * views' queries, on any replica without a coordinator, and the partial rollups of the minutes not settled yet,
 * merged in memory as derivation writes each chunk's OTLP form. Uses {@code archive}, {@code schedule} and
 * {@code telemetry}.
 */
package chunkrelay.envelope.rollups;
