package chunkrelay.storage;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A TCP proxy in front of a real S3 server that loses one response: the first request whose request line
 * contains {@code marker} reaches the server and is applied, but the connection is cut before its final response
 * gets back to the client. Interim {@code 100 Continue} responses pass.
 */
final class ResponseDroppingProxy implements AutoCloseable {
    private final ServerSocket listener;
    private final URI upstream;
    private final byte[] marker;
    private final AtomicBoolean dropped = new AtomicBoolean();

    ResponseDroppingProxy(URI upstream, String marker) throws IOException {
        this.upstream = upstream;
        this.marker = marker.getBytes(StandardCharsets.US_ASCII);
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::accept, "response-dropping-proxy");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    URI endpoint() {
        return URI.create("http://127.0.0.1:" + listener.getLocalPort());
    }

    boolean dropped() {
        return dropped.get();
    }

    private void accept() {
        try {
            while (true) {
                Socket client = listener.accept();
                Socket server = new Socket(upstream.getHost(), upstream.getPort());
                AtomicBoolean doomed = new AtomicBoolean();
                pump(client, server, true, doomed);
                pump(server, client, false, doomed);
            }
        } catch (IOException closed) {
            // the proxy is closed
        }
    }

    private void pump(Socket from, Socket to, boolean requests, AtomicBoolean doomed) {
        Thread pump = new Thread(() -> {
            byte[] buffer = new byte[64 * 1024];
            try (InputStream in = from.getInputStream()) {
                OutputStream out = to.getOutputStream();
                int n;
                while ((n = in.read(buffer)) > 0) {
                    if (requests && !dropped.get() && contains(buffer, n, marker) && dropped.compareAndSet(false, true)) {
                        doomed.set(true);
                    }
                    if (!requests && doomed.get() && !startsWith(buffer, n, "HTTP/1.1 100")) {
                        from.close();
                        to.close();
                        return;
                    }
                    out.write(buffer, 0, n);
                    out.flush();
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

    private static boolean startsWith(byte[] buffer, int n, String prefix) {
        return n >= prefix.length() && new String(buffer, 0, prefix.length(), StandardCharsets.US_ASCII).equals(prefix);
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
