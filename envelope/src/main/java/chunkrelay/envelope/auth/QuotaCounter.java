package chunkrelay.envelope.auth;

/**
 * Where a project's quota windows are counted: in this process ({@link LocalQuotaCounter}) or in Redis, shared by
 * every replica ({@link RedisQuotaCounter}). Checking and taking are one step, so that concurrent envelopes cannot
 * both take the last of a quota.
 */
interface QuotaCounter {
    /**
     * Takes {@code chunks} chunks and {@code bytes} bytes from the project's current window when both quotas can
     * take them, else nothing.
     *
     * @return 0 when taken, else the nanoseconds until the window closes (at least 1)
     */
    long tryTake(long projectId, int chunks, long bytes, ProjectConfig.RateLimits limits);
}
