package chunkrelay.envelope.upstream;

import chunkrelay.envelope.errors.RelayError;
import chunkrelay.envelope.schedule.BackgroundWork;
import chunkrelay.retry.RetryAfter;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpStatus;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The upstream's rate limits, cached per public key and applied to later envelopes, as Relay does: an upstream 429
 * with {@code X-Sentry-Rate-Limits} ({@code seconds:categories:scope:reason_code}, categories {@code ;}-separated,
 * none meaning all) is kept until each entry runs out; a 429 without it limits every category for its
 * {@code Retry-After} (read by {@link RetryAfter}), else 60 s, as SDKs assume.
 */
final class UpstreamRateLimits {
    static final String HEADER = "X-Sentry-Rate-Limits";
    static final Duration BARE_429 = Duration.ofSeconds(60);

    /** One active limit: which categories (empty: all), until when, its scope and reason code. */
    record Limit(Set<String> categories, Instant until, String scope, String reasonCode) {
        boolean covers(List<String> itemCategories) {
            return categories.isEmpty() ? !itemCategories.isEmpty()
                    : itemCategories.stream().anyMatch(categories::contains);
        }

        /** This limit as an {@code X-Sentry-Rate-Limits} entry, seconds counted from {@code now}, rounded up. */
        String header(Instant now) {
            long seconds = Math.max(1, (Duration.between(now, until).toMillis() + 999) / 1000);
            return seconds + ":" + String.join(";", categories) + ":" + scope + ":" + reasonCode;
        }
    }

    private final Cache<String, List<Limit>> byKey = Caffeine.newBuilder()
            .executor(BackgroundWork.cacheMaintenance()).maximumSize(100_000)
            .expireAfterWrite(Duration.ofDays(1)).build();

    /**
     * The 429 of an envelope whose every item these limits remove, as Relay answers it: {@code Retry-After} the
     * longest of them, and each distinct limit in {@code X-Sentry-Rate-Limits}, so that the SDK stops sending.
     */
    static RelayError refusal(List<Limit> limits, Instant now) {
        long retryAfter = 1;
        List<String> entries = new ArrayList<>();
        for (Limit limit : limits) {
            String entry = limit.header(now);
            if (!entries.contains(entry)) {
                entries.add(entry);
            }
            retryAfter = Math.max(retryAfter, Long.parseLong(entry.substring(0, entry.indexOf(':'))));
        }
        return new RelayError(HttpStatus.TOO_MANY_REQUESTS, "event rejected due to rate limit", List.of(),
                Map.of(HttpHeaders.RETRY_AFTER, Long.toString(retryAfter), HEADER,
                        String.join(",", entries)));
    }

    /** Takes the limits of an upstream 429 for this key. */
    void record(String publicKey, String rateLimitsHeader, String retryAfter, Instant now) {
        List<Limit> parsed = parse(rateLimitsHeader, now);
        if (parsed.isEmpty()) {
            Duration wait = RetryAfter.parse(retryAfter, now).orElse(BARE_429);
            parsed = List.of(new Limit(Set.of(), now.plus(wait), "key", "generic"));
        }
        List<Limit> merged = new ArrayList<>(active(publicKey, now));
        merged.addAll(parsed);
        byKey.put(publicKey, List.copyOf(merged));
    }

    /** The limits of this key still running at {@code now}. */
    List<Limit> active(String publicKey, Instant now) {
        List<Limit> limits = byKey.getIfPresent(publicKey);
        if (limits == null) {
            return List.of();
        }
        return limits.stream().filter(limit -> limit.until().isAfter(now)).toList();
    }

    /** The longest running limit that removes an item of this type, if any. */
    Optional<Limit> limiting(String publicKey, String itemType, Instant now) {
        List<String> categories = DataCategory.of(itemType);
        return active(publicKey, now).stream().filter(limit -> limit.covers(categories))
                .max((a, b) -> a.until().compareTo(b.until()));
    }

    static List<Limit> parse(String header, Instant now) {
        List<Limit> limits = new ArrayList<>();
        if (header == null) {
            return limits;
        }
        for (String entry : header.split(",")) {
            String[] parts = entry.trim().split(":", -1);
            if (parts.length < 2) {
                continue;
            }
            long seconds;
            try {
                seconds = (long) Math.ceil(Double.parseDouble(parts[0].trim()));
            } catch (NumberFormatException e) {
                continue;
            }
            Set<String> categories = new java.util.LinkedHashSet<>();
            for (String category : parts[1].split(";")) {
                if (!category.isBlank()) {
                    categories.add(category.trim().toLowerCase(Locale.ROOT));
                }
            }
            String scope = parts.length > 2 && !parts[2].isBlank() ? parts[2].trim() : "organization";
            String reason = parts.length > 3 && !parts[3].isBlank() ? parts[3].trim() : "generic";
            limits.add(new Limit(Set.copyOf(categories), now.plusSeconds(Math.max(0, seconds)), scope, reason));
        }
        return limits;
    }
}
