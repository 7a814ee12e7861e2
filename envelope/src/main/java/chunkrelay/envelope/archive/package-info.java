/**
 * Wiring of the S3 archive from configuration: an external bucket or the embedded S3 server. Its clients are closed
 * in the background work's stop order. Uses {@code schedule}.
 */
package chunkrelay.envelope.archive;
