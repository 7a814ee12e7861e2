/**
 * Each SDK's ingest health: chunks accepted and refused (by Relay's reason), samples received and dropped by
 * normalisation (by rule) and profiler sessions, counted per project and minute of receipt as the chunk path decides
 * each chunk, shared between replicas through the bucket and summed on read; their bounded meters; the
 * {@code /api/v1/projects/{p}/health} answer (JSON or CSV). Uses {@code views}, {@code derivation},
 * {@code schedule} and {@code telemetry}.
 */
package chunkrelay.envelope.health;
