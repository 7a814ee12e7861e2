package chunkrelay.translate.export;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceResponse;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.zip.GZIPInputStream;

/**
 * A real OTLP/HTTP receiver on 127.0.0.1 for the tests: serves {@code POST /v1development/profiles}, decodes
 * every body with {@link ExportProfilesServiceRequest#parseFrom} (gunzipping when Content-Encoding is gzip)
 * and answers from a script of replies (then 200 with an empty response).
 */
final class TestCollector implements AutoCloseable {

    /** What arrived: server-side arrival time, headers, the body as sent and decoded. */
    record Received(long arrivalNanos, String path, Headers headers, int decodedLength, byte[] wireBody,
                    byte[] body, ExportProfilesServiceRequest request) {
    }

    /** A scripted answer; {@code hold} (if set) is awaited before answering, to make the target slow. */
    record Reply(int status, Map<String, String> headers, byte[] body, CountDownLatch hold, boolean stallBody) {
        Reply(int status, Map<String, String> headers, byte[] body, CountDownLatch hold) {
            this(status, headers, body, hold, false);
        }

        static Reply status(int status) {
            return new Reply(status, Map.of(), new byte[0], null);
        }

        /** Sends the headers of a 100-byte body, then nothing until {@code latch} opens. */
        static Reply stalledBodyUntil(CountDownLatch latch) {
            return new Reply(200, Map.of(), new byte[100], latch, true);
        }

        static Reply ok(ExportProfilesServiceResponse response) {
            return new Reply(200, Map.of("Content-Type", "application/x-protobuf"), response.toByteArray(), null);
        }

        Reply header(String name, String value) {
            Map<String, String> copy = new LinkedHashMap<>(headers);
            copy.put(name, value);
            return new Reply(status, copy, body, hold);
        }

        Reply body(String contentType, byte[] bytes) {
            return new Reply(status, headers, bytes, hold).header("Content-Type", contentType);
        }

        Reply heldUntil(CountDownLatch latch) {
            return new Reply(status, headers, body, latch);
        }
    }

    private final HttpServer server;
    private final ExecutorService executor = Executors.newCachedThreadPool();
    private final ConcurrentLinkedQueue<Reply> script = new ConcurrentLinkedQueue<>();
    private final List<Received> received = new ArrayList<>();
    private volatile boolean retainBodies = true;
    private volatile Consumer<ExportProfilesServiceRequest> inspector = request -> { };
    private volatile CountDownLatch defaultHold;

    private TestCollector(int port) throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 16);
        server.createContext("/", this::handle);
        server.setExecutor(executor);
        server.start();
    }

    static TestCollector start() throws IOException {
        return new TestCollector(0);
    }

    static TestCollector startOn(int port) throws IOException {
        return new TestCollector(port);
    }

    URI endpoint() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    TestCollector then(Reply... replies) {
        script.addAll(List.of(replies));
        return this;
    }

    /** Every unscripted answer waits for {@code latch} first: a target that has stalled. */
    void holdEveryReplyUntil(CountDownLatch latch) {
        defaultHold = latch;
    }

    /** Keeps only headers and timings, handing each decoded request to {@code inspector} (for huge bodies). */
    void inspectWithoutRetaining(Consumer<ExportProfilesServiceRequest> inspector) {
        this.inspector = inspector;
        this.retainBodies = false;
    }

    synchronized List<Received> received() {
        return List.copyOf(received);
    }

    private void handle(HttpExchange exchange) throws IOException {
        long arrival = System.nanoTime();
        try (exchange) {
            byte[] wire = exchange.getRequestBody().readAllBytes();
            byte[] body = "gzip".equalsIgnoreCase(exchange.getRequestHeaders().getFirst("Content-Encoding"))
                    ? gunzip(wire) : wire;
            ExportProfilesServiceRequest request = ExportProfilesServiceRequest.parseFrom(body);
            inspector.accept(request);
            synchronized (this) {
                received.add(retainBodies
                        ? new Received(arrival, exchange.getRequestURI().getPath(), exchange.getRequestHeaders(),
                        body.length, wire, body, request)
                        : new Received(arrival, exchange.getRequestURI().getPath(), exchange.getRequestHeaders(),
                        body.length, new byte[0], new byte[0], null));
            }
            wire = null;
            body = null;
            request = null;
            Reply reply = script.poll();
            if (reply == null) {
                reply = Reply.ok(ExportProfilesServiceResponse.getDefaultInstance());
                if (defaultHold != null) {
                    reply = reply.heldUntil(defaultHold);
                }
            }
            if (reply.stallBody()) {
                exchange.sendResponseHeaders(reply.status(), reply.body().length);
                reply.hold().await(30, TimeUnit.SECONDS);
                return;
            }
            if (reply.hold() != null) {
                reply.hold().await(30, TimeUnit.SECONDS);
            }
            reply.headers().forEach((name, value) -> exchange.getResponseHeaders().add(name, value));
            exchange.sendResponseHeaders(reply.status(), reply.body().length == 0 ? -1 : reply.body().length);
            if (reply.body().length > 0) {
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(reply.body());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static byte[] gunzip(byte[] wire) {
        try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(wire))) {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
