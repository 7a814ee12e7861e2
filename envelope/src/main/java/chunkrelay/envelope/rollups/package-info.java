/**
 * The archive's index by time and its rollups: the index entries and late queue the pipeline writes, and the
 * background builder that merges each settled minute, hour and day of a project into a rollup object, ahead of the
 * views' queries, on any replica without a coordinator. Uses {@code archive} and {@code schedule} (the builder's
 * rounds on the clock).
 */
package chunkrelay.envelope.rollups;
