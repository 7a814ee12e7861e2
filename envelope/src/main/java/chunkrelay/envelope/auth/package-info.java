/**
 * Who may send: Sentry auth parsing (five forms), DSNs and public keys, the configured projects, and per-project
 * quotas, counted in this process or, shared by replicas, in Redis. Depends only on {@code errors}
 * and {@code archive} (how a retention is written).
 */
package chunkrelay.envelope.auth;
