/**
 * Wiring of the S3 archive from configuration: an external bucket or the embedded S3 server. Uses no other package
 * of the relay.
 */
package chunkrelay.envelope.archive;
