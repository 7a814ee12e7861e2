package chunkrelay.envelope.views;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.bind.annotation.Bindable;

/**
 * The views of archived profiles, {@code relay.views.*}.
 *
 * @param enabled   off: every view route answers 404
 * @param token     when set, every view request needs {@code Authorization: Bearer <token>}; when empty, views
 *                  answer clients on the loopback interface only, and only with a loopback {@code Host}
 * @param maxChunks chunks one answer may read whole and rows a chunk listing shows: past it an answer is refused,
 *                  with 400 for reads the question asks for (ragged edges, trace and span filters) and 503 for those
 *                  of minutes not rolled up yet, and a listing stops
 */
@ConfigurationProperties("relay.views")
public record ViewsConfig(@Bindable(defaultValue = "true") boolean enabled,
                          @Bindable(defaultValue = "") String token,
                          @Bindable(defaultValue = "500") int maxChunks) {

    public boolean tokenMode() {
        return token != null && !token.isBlank();
    }

    /** What the start-up log says about access to the views. */
    public String describe() {
        if (!enabled) {
            return "off (relay.views.enabled: false)";
        }
        return tokenMode() ? "bearer token required (relay.views.token)"
                : "loopback clients only (relay.views.token unset)";
    }
}
