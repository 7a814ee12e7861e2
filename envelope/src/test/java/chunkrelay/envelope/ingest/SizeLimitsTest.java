package chunkrelay.envelope.ingest;

import chunkrelay.envelope.testing.CountingChunkPipeline;
import chunkrelay.envelope.testing.Envelopes;
import chunkrelay.envelope.testing.RelayClient;
import chunkrelay.envelope.testing.RepeatingInputStream;

import io.micronaut.context.annotation.Property;
import io.micronaut.runtime.server.EmbeddedServer;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.SequenceInputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.List;

import static chunkrelay.envelope.testing.Envelopes.AUTH;
import static chunkrelay.envelope.testing.Envelopes.PATH;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Relay's size rules at small, configured limits: a chunk limit, one profile item per envelope, a decoded
 * envelope limit and a wire limit.
 */
@MicronautTest
@Property(name = "test.pipeline", value = "counting")
@Property(name = "relay.limits.max-chunk-bytes", value = "" + SizeLimitsTest.CHUNK_LIMIT)
@Property(name = "relay.limits.max-envelope-bytes", value = "" + SizeLimitsTest.ENVELOPE_LIMIT)
@Property(name = "micronaut.server.max-request-size", value = "" + SizeLimitsTest.WIRE_LIMIT)
class SizeLimitsTest {
    static final int CHUNK_LIMIT = 2 * 1024 * 1024;
    static final int ENVELOPE_LIMIT = 4 * 1024 * 1024;
    static final int WIRE_LIMIT = 3 * 1024 * 1024;
    static final String CHUNK_413 =
            "envelope exceeded size limits for type 'profile_chunk' (https://develop.sentry.dev/sdk/envelopes/#size-limits)";

    @Inject
    EmbeddedServer server;

    @Inject
    CountingChunkPipeline pipeline;

    RelayClient client;

    @BeforeEach
    void client() {
        client = new RelayClient(server.getURI());
    }

    static byte[] filled(int size) {
        byte[] bytes = new byte[size];
        java.util.Arrays.fill(bytes, (byte) 'x');
        return bytes;
    }

    static byte[] envelope(String... itemsAndPayloads) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(Envelopes.bytes(Envelopes.header() + "\n"));
        for (String part : itemsAndPayloads) {
            out.writeBytes(Envelopes.bytes(part + "\n"));
        }
        return out.toByteArray();
    }

    static byte[] withPayload(String itemType, int size) {
        return Envelopes.withItem(Envelopes.header(), "{\"type\":\"" + itemType + "\",\"length\":" + size + "}",
                filled(size));
    }

    @Test
    void acceptsChunkOfExactlyTheLimit() {
        long before = pipeline.accepted();
        assertEquals(200, client.post(PATH, withPayload("profile_chunk", CHUNK_LIMIT), "X-Sentry-Auth", AUTH).status());
        assertEquals(before + 1, pipeline.accepted());
    }

    @Test
    void refusesChunkOverTheLimitWith413() {
        long before = pipeline.accepted();
        RelayClient.Answer answer = client.post(PATH, withPayload("profile_chunk", CHUNK_LIMIT + 1), "X-Sentry-Auth", AUTH);
        assertEquals(413, answer.status());
        assertEquals(CHUNK_413, answer.detail());
        assertEquals(before, pipeline.accepted());
    }

    @Test
    void refusesChunkWithoutLengthOverTheLimitWith413() {
        byte[] body = Envelopes.withItem(Envelopes.header(), "{\"type\":\"profile_chunk_ui\"}", filled(CHUNK_LIMIT + 1));
        assertEquals(CHUNK_413, client.post(PATH, body, "X-Sentry-Auth", AUTH).detail());
    }

    @Test
    void refusesTwoChunksInOneEnvelopeWith413AndHandsNeitherOver() {
        long before = pipeline.accepted();
        byte[] body = envelope("{\"type\":\"profile_chunk\"}", "{}", "{\"type\":\"profile_chunk\"}", "{}");
        RelayClient.Answer answer = client.post(PATH, body, "X-Sentry-Auth", AUTH);
        assertEquals(413, answer.status());
        assertEquals(CHUNK_413, answer.detail());
        assertEquals(before, pipeline.accepted());
    }

    @Test
    void countsLegacyProfileAgainstTheSameOneItemLimit() {
        RelayClient.Answer answer = client.post(PATH,
                envelope("{\"type\":\"profile\"}", "{}", "{\"type\":\"profile_chunk_ui\"}", "{}"), "X-Sentry-Auth", AUTH);
        assertEquals(CHUNK_413, answer.detail());
        RelayClient.Answer reversed = client.post(PATH,
                envelope("{\"type\":\"profile_chunk\"}", "{}", "{\"type\":\"profile\"}", "{}"), "X-Sentry-Auth", AUTH);
        assertEquals(413, reversed.status());
        assertEquals("envelope exceeded size limits for type 'profile' (https://develop.sentry.dev/sdk/envelopes/#size-limits)",
                reversed.detail());
    }

    @Test
    void acceptsProfileChunkUiAliasAndOtherItemsBesideOneChunk() {
        long before = pipeline.accepted();
        byte[] body = envelope("{\"type\":\"transaction\"}", "{}", "{\"type\":\"profile_chunk_ui\",\"platform\":\"android\"}",
                "{}", "{\"type\":\"attachment\",\"length\":3}", "abc", "{\"type\":\"mystery\"}", "?");
        assertEquals(200, client.post(PATH, body, "X-Sentry-Auth", AUTH).status());
        assertEquals(before + 1, pipeline.accepted());
    }

    @Test
    void reportsWireFormatErrorBeforeSizeOfAnEarlierItem() {
        byte[] body = envelope("{\"type\":\"profile_chunk\",\"length\":" + (CHUNK_LIMIT + 1) + "}",
                new String(filled(CHUNK_LIMIT + 1)), "{\"type\":\"attachment\",\"length\":10}", "short");
        RelayClient.Answer answer = client.post(PATH, body, "X-Sentry-Auth", AUTH);
        assertEquals(400, answer.status());
        assertEquals("[\"unexpected end of file\"]", answer.causes());
    }

    @Test
    void refusesEnvelopeOverTheDecodedLimitWith413() throws IOException {
        byte[] big = withPayload("attachment", ENVELOPE_LIMIT);
        RelayClient.Answer compressed = client.post(PATH, ContentEncodingTest.gzip(big), "X-Sentry-Auth", AUTH,
                "Content-Encoding", "gzip");
        assertEquals(413, compressed.status(), compressed.raw());
        assertEquals("failed to read request body", compressed.detail());
        RelayClient.Answer streamed = client.postStream(PATH, () -> new ByteArrayInputStream(big), "X-Sentry-Auth", AUTH);
        assertEquals(413, streamed.status(), streamed.raw());
    }

    @Test
    void refusesBodyOverTheWireLimitWith413() {
        byte[] big = withPayload("attachment", WIRE_LIMIT + 10);
        RelayClient.Answer sized = client.post(PATH, big, "X-Sentry-Auth", AUTH);
        assertEquals(413, sized.status(), sized.raw());
        assertEquals("failed to read request body", sized.detail());
        RelayClient.Answer chunked = client.postStream(PATH, () -> new ByteArrayInputStream(big), "X-Sentry-Auth", AUTH);
        assertEquals(413, chunked.status(), chunked.raw());
        assertEquals("failed to read request body", chunked.detail());
    }

    @Test
    void aClientStillSendingABodyOverTheWireLimitAfterThe413CanSendItAllAndReadTheAnswer() throws IOException {
        byte[] big = withPayload("attachment", WIRE_LIMIT + 10);
        try (Socket socket = new Socket(server.getHost(), server.getPort())) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(Envelopes.bytes("POST " + PATH + " HTTP/1.1\r\nHost: relay\r\nX-Sentry-Auth: " + AUTH
                    + "\r\nContent-Length: " + big.length + "\r\n\r\n"));
            out.flush();
            // the answer comes on the headers alone; closing the socket under the body would reset it
            String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(answer.startsWith("HTTP/1.1 413 "), answer);
            assertTrue(answer.endsWith("{\"detail\":\"failed to read request body\","
                    + "\"causes\":[\"payload reached its size limit\"]}"), answer);
            out.write(big);
            out.flush();
        }
    }

    @Test
    void refusesOversizeBodyEvenWhenItsStartIsMalformed() {
        InputStream body = new SequenceInputStream(Collections.enumeration(List.of(
                new ByteArrayInputStream(Envelopes.bytes("{\"broken\n")),
                new RepeatingInputStream((byte) 'x', ENVELOPE_LIMIT))));
        byte[] bytes;
        try {
            bytes = body.readAllBytes();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        byte[] gz;
        try {
            gz = ContentEncodingTest.gzip(bytes);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        assertEquals(413, client.post(PATH, gz, "X-Sentry-Auth", AUTH, "Content-Encoding", "gzip").status());
    }
}
