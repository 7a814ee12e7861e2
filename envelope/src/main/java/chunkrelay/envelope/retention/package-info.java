/**
 * How long the archive keeps what the relay writes: the retention sweep on one replica of those sharing the bucket, and
 * the size of what each project keeps. Uses {@code archive}, {@code auth}, {@code rollups},
 * {@code schedule} and {@code telemetry}.
 */
package chunkrelay.envelope.retention;
