package chunkrelay.envelope.sdk;

import java.net.URI;
import java.util.Objects;

/**
 * Where an SDK run sends its envelopes: a relay's base URL plus the project and public key that make up the DSN.
 * The same runs go to {@link EnvelopeRecorder} or to the real relay; only this value changes.
 */
public record RelayTarget(URI baseUrl, long projectId, String publicKey) {

    public RelayTarget {
        Objects.requireNonNull(baseUrl, "baseUrl");
        Objects.requireNonNull(publicKey, "publicKey");
        if (baseUrl.getHost() == null || baseUrl.getPort() < 0) {
            throw new IllegalArgumentException("base URL needs an explicit host and port: " + baseUrl);
        }
    }

    /** The DSN an SDK derives {@code <base>/api/<project>/envelope/} from: {@code scheme://key@host:port/project}. */
    public String dsn() {
        return baseUrl.getScheme() + "://" + publicKey + "@" + baseUrl.getHost() + ":" + baseUrl.getPort()
                + "/" + projectId;
    }
}
