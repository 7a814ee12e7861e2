package chunkrelay.storage;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.util.function.Supplier;

/**
 * A TCP proxy in front of a real S3 server that shows every piece read from either side of a connection to that
 * connection's {@link Connection}, which passes it on, drops it or cuts the connection; the proxies that make a
 * store fail in chosen ways are built on it, here and in envelope's tests.
 */
public final class InterceptingProxy implements AutoCloseable {
    /** What becomes of a piece read from one side. */
    public enum Verdict {
        PASS,
        DROP,
        /** both sides closed at once, nothing more passing */
        CUT
    }

    /** One client connection's decisions; pieces of requests and of responses arrive on two threads. */
    public interface Connection {
        /** A piece of the client's requests; {@code client} takes an answer made up by the proxy. */
        Verdict request(byte[] buffer, int n, OutputStream client) throws IOException;

        /** A piece of the server's responses. */
        default Verdict response(byte[] buffer, int n) {
            return Verdict.PASS;
        }
    }

    private final ServerSocket listener;
    private final URI upstream;
    private final Supplier<Connection> connections;

    /** Listens on a free loopback port at once, calling {@code connections} for each client connection. */
    public InterceptingProxy(URI upstream, String name, Supplier<Connection> connections) throws IOException {
        this.upstream = upstream;
        this.connections = connections;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::accept, name);
        acceptor.setDaemon(true);
        acceptor.start();
    }

    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + listener.getLocalPort());
    }

    /** Whether the first {@code n} bytes of {@code buffer} contain {@code marker}. */
    public static boolean contains(byte[] buffer, int n, byte[] marker) {
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

    private void accept() {
        try {
            while (true) {
                Socket client = listener.accept();
                Socket server = new Socket(upstream.getHost(), upstream.getPort());
                Connection connection = connections.get();
                pump(client, server, true, connection);
                pump(server, client, false, connection);
            }
        } catch (IOException closed) {
            // the proxy is closed
        }
    }

    private static void pump(Socket from, Socket to, boolean requests, Connection connection) {
        Thread pump = new Thread(() -> {
            byte[] buffer = new byte[64 * 1024];
            try (InputStream in = from.getInputStream()) {
                OutputStream out = to.getOutputStream();
                int n;
                while ((n = in.read(buffer)) > 0) {
                    Verdict verdict = requests
                            ? connection.request(buffer, n, from.getOutputStream())
                            : connection.response(buffer, n);
                    if (verdict == Verdict.CUT) {
                        break;
                    }
                    if (verdict == Verdict.PASS) {
                        out.write(buffer, 0, n);
                        out.flush();
                    }
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
