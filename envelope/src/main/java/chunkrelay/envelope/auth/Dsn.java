package chunkrelay.envelope.auth;

import chunkrelay.storage.ProjectIds;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Optional;

/**
 * The parts of a DSN ({@code scheme://public_key[:secret]@host[:port]/[path/]project_id}) that identify a
 * project, parsed with Relay's rules: http or https, a 32-character key, a numeric project id as the last
 * path segment.
 */
public record Dsn(String publicKey, long projectId) {

    public static Optional<Dsn> parse(String text) {
        URI uri;
        try {
            uri = new URI(text);
        } catch (URISyntaxException e) {
            return Optional.empty();
        }
        String scheme = uri.getScheme();
        if (scheme == null || !(scheme.equalsIgnoreCase("http") || scheme.equalsIgnoreCase("https"))
                || uri.getHost() == null || uri.getRawUserInfo() == null) {
            return Optional.empty();
        }
        String userInfo = uri.getUserInfo();
        int colon = userInfo.indexOf(':');
        String key = colon < 0 ? userInfo : userInfo.substring(0, colon);
        String path = uri.getPath() == null ? "" : uri.getPath();
        String trimmed = path.replaceAll("^/+|/+$", "");
        if (key.isEmpty() || trimmed.isEmpty() || !ProjectKey.isValid(key)) {
            return Optional.empty();
        }
        String last = trimmed.substring(trimmed.lastIndexOf('/') + 1);
        return ProjectIds.parse(last).map(id -> new Dsn(key, id));
    }
}
