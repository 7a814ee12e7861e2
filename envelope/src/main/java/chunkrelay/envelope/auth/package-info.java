/**
 * Who may send: Sentry auth parsing (five forms), DSNs and public keys, the configured projects, and per-project
 * quotas, counted in this process or, shared by replicas, in Redis. Uses {@code archive} (how a
 * retention is written) and {@code errors}.
 */
package chunkrelay.envelope.auth;
