package chunkrelay.envelope.ingest;

import chunkrelay.envelope.testing.CountingChunkPipeline;
import chunkrelay.envelope.testing.Envelopes;
import chunkrelay.envelope.testing.RelayClient;

import com.aayushatharva.brotli4j.Brotli4jLoader;
import com.aayushatharva.brotli4j.encoder.Encoder;
import com.github.luben.zstd.Zstd;
import io.micronaut.context.annotation.Property;
import io.micronaut.runtime.server.EmbeddedServer;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Arrays;
import java.util.zip.DeflaterOutputStream;
import java.util.zip.GZIPOutputStream;

import static chunkrelay.envelope.testing.Envelopes.AUTH;
import static chunkrelay.envelope.testing.Envelopes.EVENT_ID;
import static chunkrelay.envelope.testing.Envelopes.PATH;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** Each Content-Encoding Relay decodes, the ones it ignores, and the failures. */
@MicronautTest
@Property(name = "test.pipeline", value = "counting")
class ContentEncodingTest {
    @Inject
    EmbeddedServer server;

    @Inject
    CountingChunkPipeline pipeline;

    RelayClient client;

    @BeforeEach
    void client() {
        client = new RelayClient(server.getURI());
    }

    private void assertAccepted(String encoding, byte[] body) {
        long before = pipeline.accepted();
        RelayClient.Answer answer = client.post(PATH, body, "X-Sentry-Auth", AUTH, "Content-Encoding", encoding);
        assertEquals(200, answer.status(), encoding + ": " + answer.raw());
        assertEquals(EVENT_ID, answer.body().path("id").asText(), encoding);
        assertEquals(before + 1, pipeline.accepted(), encoding);
    }

    static byte[] gzip(byte[] data) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
            gz.write(data);
        }
        return out.toByteArray();
    }

    static byte[] deflate(byte[] data) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (DeflaterOutputStream z = new DeflaterOutputStream(out)) {
            z.write(data);
        }
        return out.toByteArray();
    }

    static byte[] brotli(byte[] data) throws IOException {
        Brotli4jLoader.ensureAvailability();
        return Encoder.compress(data, new Encoder.Parameters().setQuality(4));
    }

    static byte[] zstd(byte[] data) {
        return Zstd.compress(data);
    }

    @Test
    void decodesGzip() throws IOException {
        assertAccepted("gzip", gzip(Envelopes.withChunk()));
    }

    @Test
    void decodesXGzip() throws IOException {
        assertAccepted("x-gzip", gzip(Envelopes.withChunk()));
    }

    @Test
    void decodesDeflate() throws IOException {
        assertAccepted("deflate", deflate(Envelopes.withChunk()));
    }

    @Test
    void decodesBrotli() throws IOException {
        assertAccepted("br", brotli(Envelopes.withChunk()));
    }

    @Test
    void decodesZstd() {
        assertAccepted("zstd", zstd(Envelopes.withChunk()));
    }

    @Test
    void passesIdentityUntouched() {
        assertAccepted("identity", Envelopes.withChunk());
    }

    @Test
    void ignoresUtf8AndEmptyEncodingsThatSdksSend() {
        assertAccepted("utf-8", Envelopes.withChunk());
        assertAccepted("UTF-8", Envelopes.withChunk());
        assertAccepted("", Envelopes.withChunk());
    }

    @Test
    void refusesUnknownEncodingWith415() {
        RelayClient.Answer answer = client.post(PATH, Envelopes.withChunk(), "X-Sentry-Auth", AUTH,
                "Content-Encoding", "compress");
        assertEquals(415, answer.status());
        assertEquals("unsupported content encoding", answer.detail());
        assertEquals(415, client.post(PATH, Envelopes.withChunk(), "X-Sentry-Auth", AUTH,
                "Content-Encoding", "gzip, br").status());
    }

    @Test
    void refusesCorruptStreamsWith400() throws IOException {
        byte[] envelope = Envelopes.withChunk();
        byte[] gz = gzip(envelope);
        byte[] flipped = gz.clone();
        flipped[gz.length / 2] ^= 0x55;
        byte[][] corrupt = {
                Arrays.copyOf(gz, gz.length / 2), flipped, Envelopes.bytes("not gzip at all"),
        };
        for (byte[] body : corrupt) {
            RelayClient.Answer answer = client.post(PATH, body, "X-Sentry-Auth", AUTH, "Content-Encoding", "gzip");
            assertEquals(400, answer.status(), answer.raw());
            assertEquals("invalid request body", answer.detail());
        }
        byte[] zs = zstd(envelope);
        assertEquals(400, client.post(PATH, Arrays.copyOf(zs, zs.length / 2), "X-Sentry-Auth", AUTH,
                "Content-Encoding", "zstd").status());
        byte[] br = brotli(envelope);
        assertEquals(400, client.post(PATH, Arrays.copyOf(br, br.length / 2), "X-Sentry-Auth", AUTH,
                "Content-Encoding", "br").status());
        assertEquals(400, client.post(PATH, Envelopes.bytes("plain text"), "X-Sentry-Auth", AUTH,
                "Content-Encoding", "deflate").status());
        assertEquals(400, client.post(PATH, Envelopes.bytes("plain text"), "X-Sentry-Auth", AUTH,
                "Content-Encoding", "br").status());
    }

    @Test
    void refusesEmptyCompressedBodyWith400() {
        assertEquals(400, client.post(PATH, new byte[0], "X-Sentry-Auth", AUTH, "Content-Encoding", "gzip").status());
    }
}
