package chunkrelay.envelope.auth;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The {@code sentry_*} pairs a client authenticates with, parsed as Relay's {@code Auth} does.
 *
 * @param publicKey the raw {@code sentry_key}, flags after a '.' included
 * @param version   {@code sentry_version}, 7 when absent
 * @param client    {@code sentry_client}, or null
 */
public record SentryAuth(String publicKey, int version, String client) {
    /** The protocol version Relay speaks; higher ones are refused. */
    public static final int LATEST_VERSION = 7;

    static final class Invalid extends Exception {
        Invalid(String message) {
            super(message);
        }
    }

    /** Pairs in order; a later duplicate wins, as in Relay. */
    static SentryAuth fromPairs(List<Map.Entry<String, String>> pairs) throws Invalid {
        String key = "";
        int version = LATEST_VERSION;
        String client = null;
        for (Map.Entry<String, String> pair : pairs) {
            switch (pair.getKey()) {
                case "sentry_key" -> key = pair.getValue();
                case "sentry_client" -> client = pair.getValue();
                case "sentry_version" -> version = parseVersion(pair.getValue());
                default -> {
                    // sentry_secret, sentry_timestamp and unknown pairs do not take part in auth
                }
            }
        }
        if (key.isEmpty()) {
            throw new Invalid("missing public key in auth header");
        }
        return new SentryAuth(key, version, client);
    }

    /** {@code Sentry k=v,k=v}: prefix case-insensitive, pairs split on ',', keys and values trimmed. */
    static SentryAuth fromHeader(String header) throws Invalid {
        int space = header.indexOf(' ');
        String prefix = space < 0 ? header : header.substring(0, space);
        if (!prefix.equalsIgnoreCase("sentry")) {
            throw new Invalid("non sentry auth");
        }
        String items = space < 0 ? "" : header.substring(space + 1);
        List<Map.Entry<String, String>> pairs = new ArrayList<>();
        for (String item : items.split(",", -1)) {
            String[] kv = item.split("=", -1);
            if (kv.length >= 2) {
                pairs.add(Map.entry(kv[0].trim(), kv[1].trim()));
            }
        }
        return fromPairs(pairs);
    }

    /** A form-urlencoded query string. */
    static SentryAuth fromQuery(String query) throws Invalid {
        List<Map.Entry<String, String>> pairs = new ArrayList<>();
        for (String item : query.split("&")) {
            if (item.isEmpty()) {
                continue;
            }
            int eq = item.indexOf('=');
            String key = eq < 0 ? item : item.substring(0, eq);
            String value = eq < 0 ? "" : item.substring(eq + 1);
            pairs.add(Map.entry(formDecode(key), formDecode(value)));
        }
        return fromPairs(pairs);
    }

    private static String formDecode(String s) {
        try {
            return URLDecoder.decode(s, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            // a broken %-escape: keep the raw text rather than refusing, like a lenient form decoder
            return s.replace('+', ' ');
        }
    }

    /** The part before the first '.', as an unsigned 16-bit number. */
    private static int parseVersion(String value) throws Invalid {
        String major = value.split("\\.", 2)[0];
        if (major.isEmpty() || major.length() > 5 || !major.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new Invalid("invalid value for version");
        }
        int version = Integer.parseInt(major);
        if (version > 0xFFFF) {
            throw new Invalid("invalid value for version");
        }
        return version;
    }
}
