package chunkrelay.translate.export;

import java.util.Objects;

/**
 * One request to forward: a key the application uses to find the archived object again (the archive stem)
 * and the serialized {@code ExportProfilesServiceRequest}. The body array is not copied: do not modify it
 * after offering.
 */
public record ForwardRequest(String key, byte[] body) {
    public ForwardRequest {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(body, "body");
    }

    @Override
    public String toString() {
        return "ForwardRequest[" + key + ", " + body.length + " bytes]";
    }
}
