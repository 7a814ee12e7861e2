/**
 * Each SDK's ingest health: chunks accepted and refused (by Relay's reason), samples received and dropped by
 * normalisation (by rule), profiler sessions and the sessions transactions name that sent no chunk, the transactions no chunk of their
 * session spans, samples linked to
 * spans and linkable, counted per project and minute of receipt as the chunk path, the span intake and the derivation
 * see them, shared between replicas through the bucket and summed on read; their bounded meters (the silent sessions
 * of the last settled hour as gauges); the {@code /api/v1/projects/{p}/health} answer (JSON or CSV).
 * Uses {@code views}, {@code derivation}, {@code links}, {@code schedule} and {@code telemetry}.
 */
package chunkrelay.envelope.health;
