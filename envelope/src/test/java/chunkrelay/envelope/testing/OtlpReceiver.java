package chunkrelay.envelope.testing;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnknownFieldSet;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceResponse;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.GZIPInputStream;

/**
 * A test OTLP/HTTP receiver on 127.0.0.1: takes {@code POST /v1development/profiles}, gunzips when asked to,
 * decodes the body as an {@code ExportProfilesServiceRequest} (400 when it is not one) and records it; answers
 * with the configured status after the configured delay. Can stop and serve again on the same port.
 */
public final class OtlpReceiver implements AutoCloseable {

    /** One request as received. */
    public record Received(String contentEncoding, byte[] body, ExportProfilesServiceRequest request) {
        public String hex() {
            return HexFormat.of().formatHex(body);
        }
    }

    private final List<Received> received = new ArrayList<>();
    private final AtomicInteger attempts = new AtomicInteger();
    private final ExecutorService executor = Executors.newCachedThreadPool();
    private volatile int status = 200;
    private volatile String message = "";
    private volatile Duration delay = Duration.ZERO;
    private HttpServer server;
    private int port;

    private OtlpReceiver(int port) throws IOException {
        serve(port);
    }

    public static OtlpReceiver start() throws IOException {
        return new OtlpReceiver(0);
    }

    /** The endpoint to configure as {@code relay.otlp.endpoint}. */
    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + port);
    }

    public OtlpReceiver answering(int status) {
        this.status = status;
        return this;
    }

    /** Answers {@code status} with a {@code google.rpc.Status} body holding {@code message}, as the Collector does. */
    public OtlpReceiver answering(int status, String message) {
        this.message = message;
        return answering(status);
    }

    public OtlpReceiver delaying(Duration delay) {
        this.delay = delay;
        return this;
    }

    /** Requests that reached the handler, whatever it answered. */
    public int attempts() {
        return attempts.get();
    }

    /** Requests answered with 2xx, decoded, in arrival order. */
    public synchronized List<Received> received() {
        return List.copyOf(received);
    }

    /** Stops listening: connections are refused until {@link #restart()}. */
    public synchronized void stop() {
        if (server != null) {
            server.stop(0);
            server = null;
        }
    }

    /** Listens again on the same port. */
    public synchronized void restart() throws IOException {
        if (server == null) {
            serve(port);
        }
    }

    @Override
    public void close() {
        stop();
        executor.shutdownNow();
    }

    /** {@code google.rpc.Status} with only its {@code message} (field 2); nothing for an empty message. */
    private static byte[] rpcStatus(String message) {
        if (message.isEmpty()) {
            return new byte[0];
        }
        return UnknownFieldSet.newBuilder().addField(2, UnknownFieldSet.Field.newBuilder()
                .addLengthDelimited(ByteString.copyFromUtf8(message)).build()).build().toByteArray();
    }

    private synchronized void serve(int requestedPort) throws IOException {
        HttpServer started = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), requestedPort), 0);
        started.createContext("/v1development/profiles", this::handle);
        started.setExecutor(executor);
        started.start();
        server = started;
        port = started.getAddress().getPort();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            // the answer is the one configured when the request arrived: a test that sees an attempt and then
            // changes the answer changes it for the next request, not for the one it saw
            int answer = status;
            attempts.incrementAndGet();
            String encoding = exchange.getRequestHeaders().getFirst("Content-Encoding");
            byte[] body;
            try (InputStream in = "gzip".equalsIgnoreCase(encoding)
                    ? new GZIPInputStream(exchange.getRequestBody()) : exchange.getRequestBody()) {
                body = in.readAllBytes();
            }
            Thread.sleep(delay.toMillis());
            ExportProfilesServiceRequest request;
            try {
                request = ExportProfilesServiceRequest.parseFrom(body);
            } catch (IOException e) {
                exchange.sendResponseHeaders(400, -1);
                return;
            }
            if (answer >= 200 && answer < 300) {
                synchronized (this) {
                    received.add(new Received(encoding, body, request));
                }
            }
            byte[] response = answer >= 200 && answer < 300
                    ? ExportProfilesServiceResponse.getDefaultInstance().toByteArray() : rpcStatus(message);
            exchange.getResponseHeaders().set("Content-Type", "application/x-protobuf");
            exchange.sendResponseHeaders(answer, response.length == 0 ? -1 : response.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(response);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
