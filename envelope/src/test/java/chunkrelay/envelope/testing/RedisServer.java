package chunkrelay.envelope.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real {@code redis-server} (Debian's package; {@code .ci/run} installs it) on a free loopback port, in memory
 * only ({@code --save "" --appendonly no}), started and stopped by the test.
 */
public final class RedisServer implements AutoCloseable {
    private final int port;
    private final Path log;
    private Process process;

    private RedisServer(int port, Path log) {
        this.port = port;
        this.log = log;
    }

    public static RedisServer start(Path work) throws Exception {
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
        RedisServer server = new RedisServer(port, work.resolve("redis-" + port + ".log"));
        server.launch();
        return server;
    }

    public String uri() {
        return "redis://127.0.0.1:" + port;
    }

    public int port() {
        return port;
    }

    /**
     * A command sent over a plain socket (RESP), for tests that look behind the relay: the reply's first line, or
     * a bulk string's value.
     */
    public String command(String... words) throws IOException {
        StringBuilder request = new StringBuilder("*" + words.length + "\r\n");
        for (String word : words) {
            request.append('$').append(word.getBytes(StandardCharsets.UTF_8).length).append("\r\n").append(word)
                    .append("\r\n");
        }
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 2000);
            socket.setSoTimeout(2000);
            OutputStream out = socket.getOutputStream();
            out.write(request.toString().getBytes(StandardCharsets.UTF_8));
            out.flush();
            InputStream in = socket.getInputStream();
            String first = line(in);
            return first.startsWith("$") && !first.equals("$-1") ? line(in) : first;
        }
    }

    private static String line(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        for (int c = in.read(); c != -1 && c != '\n'; c = in.read()) {
            if (c != '\r') {
                line.append((char) c);
            }
        }
        return line.toString();
    }

    /** Kills the server (SIGKILL): its data is gone, clients see the connection drop. */
    public void stop() throws InterruptedException {
        if (process != null) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            process = null;
        }
    }

    /** Starts it again on the same port, empty. */
    public void restart() throws Exception {
        stop();
        launch();
    }

    private void launch() throws Exception {
        process = new ProcessBuilder(List.of("redis-server", "--port", Integer.toString(port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no"))
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < giveUp) {
            if (!process.isAlive()) {
                throw new IllegalStateException("redis-server exited: " + Files.readString(log));
            }
            try {
                if (command("PING").equals("+PONG")) {
                    return;
                }
            } catch (IOException notYet) {
                Thread.sleep(50);
            }
        }
        throw new IllegalStateException("redis-server did not answer PING within 20 s: " + Files.readString(log));
    }

    @Override
    public void close() throws InterruptedException {
        stop();
    }
}
