package chunkrelay.envelope.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
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

    private final ServerSocket listener;
    private final URI upstream;
    private final byte[] marker;
    private volatile boolean failing;

    public FailingStoreProxy(URI upstream, String marker) throws IOException {
        this.upstream = upstream;
        this.marker = marker.getBytes(StandardCharsets.US_ASCII);
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::accept, "failing-store-proxy");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + listener.getLocalPort());
    }

    /** Whether requests naming the marker are refused from now on. */
    public void failing(boolean failing) {
        this.failing = failing;
    }

    private void accept() {
        try {
            while (true) {
                Socket client = listener.accept();
                Socket server = new Socket(upstream.getHost(), upstream.getPort());
                pump(client, server, true);
                pump(server, client, false);
            }
        } catch (IOException closed) {
            // the proxy is closed
        }
    }

    private void pump(Socket from, Socket to, boolean requests) {
        Thread pump = new Thread(() -> {
            byte[] buffer = new byte[64 * 1024];
            try (InputStream in = from.getInputStream()) {
                OutputStream out = to.getOutputStream();
                boolean refused = false;
                int n;
                while ((n = in.read(buffer)) > 0) {
                    if (requests && !refused && failing && contains(buffer, n, marker)) {
                        // HTTP/1.1 clients do not pipeline: nothing earlier on this connection awaits an answer
                        refused = true;
                        from.getOutputStream().write(DISK_FULL);
                        from.getOutputStream().flush();
                    }
                    if (!refused) {
                        out.write(buffer, 0, n);
                        out.flush();
                    }
                    // once refused, the rest of the request is read and dropped until the client closes
                }
            } catch (IOException cut) {
                // one side closed
            }
            closeQuietly(from);
            closeQuietly(to);
        });
        pump.setDaemon(true);
        pump.start();
    }

    private static boolean contains(byte[] buffer, int n, byte[] marker) {
        outer:
        for (int i = 0; i + marker.length <= n; i++) {
            for (int j = 0; j < marker.length; j++) {
                if (buffer[i + j] != marker[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // already closed
        }
    }

    @Override
    public void close() throws IOException {
        listener.close();
    }
}
