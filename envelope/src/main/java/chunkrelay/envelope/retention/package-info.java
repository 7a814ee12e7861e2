/**
 * How long the archive keeps what the relay writes: the retention sweep on one replica of those sharing the bucket,
 * and the size of what each project keeps. Uses {@code archive} (the settings), {@code auth} (projects' own
 * retentions), {@code links} and {@code upstream} (the names of their folders in the bucket), {@code schedule}
 * (the sweep's thread).
 */
package chunkrelay.envelope.retention;
