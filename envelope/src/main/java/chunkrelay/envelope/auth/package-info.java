/**
 * Who may send: Sentry auth parsing (five forms), DSNs and public keys, the configured projects, and per-project
 * quotas, counted in this process or, shared by replicas, in Redis. Uses {@code archive}, {@code errors},
 * {@code schedule} and {@code telemetry}.
 */
package chunkrelay.envelope.auth;
