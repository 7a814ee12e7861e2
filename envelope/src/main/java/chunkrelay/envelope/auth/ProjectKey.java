package chunkrelay.envelope.auth;

/** A project's public key: exactly 32 ASCII characters. */
public final class ProjectKey {
    private ProjectKey() {
    }

    static boolean isValid(String key) {
        return key.length() == 32 && key.chars().allMatch(c -> c < 0x80);
    }

    /** The key of a {@code sentry_key} value: flags after the first '.' are ignored; null when malformed. */
    public static String withoutFlags(String rawKey) {
        int dot = rawKey.indexOf('.');
        String key = dot < 0 ? rawKey : rawKey.substring(0, dot);
        return isValid(key) ? key : null;
    }
}
