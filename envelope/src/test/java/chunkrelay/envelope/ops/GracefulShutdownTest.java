package chunkrelay.envelope.ops;

import chunkrelay.envelope.pipeline.ChunkPipeline;
import chunkrelay.envelope.pipeline.ChunkPipelineUnavailableException;
import chunkrelay.envelope.testing.Envelopes;
import chunkrelay.envelope.pipeline.ProfileChunkItem;

import io.micronaut.context.ApplicationContext;
import io.micronaut.context.annotation.Replaces;
import io.micronaut.context.annotation.Requires;
import io.micronaut.runtime.server.EmbeddedServer;
import jakarta.inject.Singleton;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static chunkrelay.envelope.testing.Envelopes.AUTH;
import static chunkrelay.envelope.testing.Envelopes.PATH;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Stopping the relay (SIGTERM, or the context closing) stops accepting connections but lets a request in flight
 * finish: its chunk is taken and its client gets 200, not a reset connection.
 */
class GracefulShutdownTest {

    /** Holds each envelope's chunks until the test lets them through. */
    @Singleton
    @Requires(property = "test.pipeline", value = "held")
    @Replaces(ChunkPipeline.class)
    static class HeldPipeline implements ChunkPipeline {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        volatile int taken;

        @Override
        public void accept(List<ProfileChunkItem> chunks) {
            entered.countDown();
            try {
                if (!release.await(30, TimeUnit.SECONDS)) {
                    throw new ChunkPipelineUnavailableException("never released");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ChunkPipelineUnavailableException("interrupted");
            }
            taken += chunks.size();
        }
    }

    @Test
    void finishesTheRequestInFlightAndRefusesNewConnectionsWhileStopping() throws Exception {
        EmbeddedServer server = ApplicationContext.run(EmbeddedServer.class,
                Map.of("test.pipeline", "held", "micronaut.lifecycle.graceful-shutdown.grace-period", "20s"),
                "test");
        HeldPipeline pipeline = server.getApplicationContext().getBean(HeldPipeline.class);
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        CompletableFuture<HttpResponse<String>> inFlight = http.sendAsync(
                HttpRequest.newBuilder(server.getURI().resolve(PATH)).header("X-Sentry-Auth", AUTH)
                        .POST(HttpRequest.BodyPublishers.ofByteArray(Envelopes.withChunk())).build(),
                HttpResponse.BodyHandlers.ofString());
        assertTrue(pipeline.entered.await(10, TimeUnit.SECONDS), "the request never reached the pipeline");

        CompletableFuture<Void> stopping = CompletableFuture.runAsync(() -> server.getApplicationContext().close());
        awaitConnectionsRefused(server);
        assertFalse(stopping.isDone(), "the relay stopped with a request in flight");
        assertFalse(inFlight.isDone());

        pipeline.release.countDown();
        HttpResponse<String> response = inFlight.get(10, TimeUnit.SECONDS);
        assertEquals(200, response.statusCode(), response.body());
        assertEquals(1, pipeline.taken);
        stopping.get(20, TimeUnit.SECONDS);
        assertFalse(server.isRunning());
    }

    /**
     * Waits until a new connection is refused outright (a TCP reset: {@link ConnectException}). A connection that is
     * accepted but then times out, or any other failure, does not count: it would not show the listener closed.
     */
    private static void awaitConnectionsRefused(EmbeddedServer server) throws InterruptedException {
        long giveUp = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        List<String> otherwise = new ArrayList<>();
        while (System.nanoTime() < giveUp) {
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(server.getHost(), server.getPort()), 1000);
                otherwise.add("accepted");
            } catch (ConnectException refused) {
                return;
            } catch (IOException e) {
                otherwise.add(e.getClass().getSimpleName());
            }
            Thread.sleep(50);
        }
        throw new AssertionError("the stopping relay did not refuse new connections; attempts ended: "
                + otherwise.stream().distinct().toList());
    }
}
