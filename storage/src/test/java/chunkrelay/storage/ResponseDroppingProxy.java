package chunkrelay.storage;

import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A TCP proxy in front of a real S3 server that loses one response: the first request whose request line
 * contains {@code marker} reaches the server and is applied, but the connection is cut before its final response
 * gets back to the client. Interim {@code 100 Continue} responses pass.
 */
final class ResponseDroppingProxy implements AutoCloseable {
    private final byte[] marker;
    private final AtomicBoolean dropped = new AtomicBoolean();
    private final InterceptingProxy proxy;

    ResponseDroppingProxy(URI upstream, String marker) throws IOException {
        this.marker = marker.getBytes(StandardCharsets.US_ASCII);
        this.proxy = new InterceptingProxy(upstream, "response-dropping-proxy", Doomable::new);
    }

    URI endpoint() {
        return proxy.endpoint();
    }

    boolean dropped() {
        return dropped.get();
    }

    /** A connection whose responses are cut once it carried the one request whose response is lost. */
    private final class Doomable implements InterceptingProxy.Connection {
        private final AtomicBoolean doomed = new AtomicBoolean();

        @Override
        public InterceptingProxy.Verdict request(byte[] buffer, int n, OutputStream client) {
            if (!dropped.get() && InterceptingProxy.contains(buffer, n, marker) && dropped.compareAndSet(false, true)) {
                doomed.set(true);
            }
            return InterceptingProxy.Verdict.PASS;
        }

        @Override
        public InterceptingProxy.Verdict response(byte[] buffer, int n) {
            return doomed.get() && !startsWith(buffer, n, "HTTP/1.1 100")
                    ? InterceptingProxy.Verdict.CUT
                    : InterceptingProxy.Verdict.PASS;
        }
    }

    private static boolean startsWith(byte[] buffer, int n, String prefix) {
        return n >= prefix.length() && new String(buffer, 0, prefix.length(), StandardCharsets.US_ASCII).equals(prefix);
    }

    @Override
    public void close() throws IOException {
        proxy.close();
    }
}
