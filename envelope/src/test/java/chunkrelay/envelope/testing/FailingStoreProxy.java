package chunkrelay.envelope.testing;

import chunkrelay.storage.InterceptingProxy;

import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;

/**
 * A TCP proxy in front of a real S3 server that, while {@linkplain #failing failing}, answers every request whose
 * request line contains {@code marker} with the 500 a server gives when its disk is full, without passing it on;
 * the rest of such a request is read and dropped, and everything else passes unchanged.
 */
public final class FailingStoreProxy implements AutoCloseable {
    private static final String DISK_FULL_BODY =
            "<Error><Code>InternalError</Code><Message>No space left on device</Message></Error>";
    private static final byte[] DISK_FULL = ("HTTP/1.1 500 Internal Server Error\r\nContent-Type: application/xml\r\n"
            + "Content-Length: " + DISK_FULL_BODY.length() + "\r\nConnection: close\r\n\r\n" + DISK_FULL_BODY)
            .getBytes(StandardCharsets.US_ASCII);

    private final byte[] marker;
    private volatile boolean failing;
    private final InterceptingProxy proxy;

    public FailingStoreProxy(URI upstream, String marker) throws IOException {
        this.marker = marker.getBytes(StandardCharsets.US_ASCII);
        this.proxy = new InterceptingProxy(upstream, "failing-store-proxy", Refusable::new);
    }

    public URI endpoint() {
        return proxy.endpoint();
    }

    /** Whether requests naming the marker are refused from now on. */
    public void failing(boolean failing) {
        this.failing = failing;
    }

    /** A connection that, once it refused a request, drops the rest of it until the client closes. */
    private final class Refusable implements InterceptingProxy.Connection {
        private boolean refused;

        @Override
        public InterceptingProxy.Verdict request(byte[] buffer, int n, OutputStream client) throws IOException {
            if (!refused && failing && InterceptingProxy.contains(buffer, n, marker)) {
                // HTTP/1.1 clients do not pipeline: nothing earlier on this connection awaits an answer
                refused = true;
                client.write(DISK_FULL);
                client.flush();
            }
            return refused ? InterceptingProxy.Verdict.DROP : InterceptingProxy.Verdict.PASS;
        }
    }

    @Override
    public void close() throws IOException {
        proxy.close();
    }
}
