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
import java.io.SequenceInputStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.zip.GZIPOutputStream;

import static chunkrelay.envelope.testing.Envelopes.AUTH;
import static chunkrelay.envelope.testing.Envelopes.PATH;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Relay's default limits, end to end with bodies generated while they are sent: 50 MiB per chunk, 200 MiB per
 * decoded envelope, one event of 1 MiB. The test JVM runs with a 384 MiB heap (see the pom), so a relay that held a
 * decoded 10 GiB envelope could not pass.
 */
@MicronautTest
@Property(name = "test.pipeline", value = "counting")
class DefaultLimitsTest {
    private static final long MIB = 1024 * 1024;
    private static final long DECODED_LIMIT = 200 * MIB;

    @Inject
    EmbeddedServer server;

    @Inject
    CountingChunkPipeline pipeline;

    RelayClient client;

    @BeforeEach
    void client() {
        client = new RelayClient(server.getURI());
    }

    static InputStream chunkEnvelope(long payloadSize) {
        return new SequenceInputStream(Collections.enumeration(List.of(
                new ByteArrayInputStream(Envelopes.bytes(Envelopes.header()
                        + "\n{\"type\":\"profile_chunk\",\"length\":" + payloadSize + "}\n")),
                new RepeatingInputStream((byte) ' ', payloadSize),
                new ByteArrayInputStream(Envelopes.bytes("\n")))));
    }

    /**
     * gzip of {@code size} zero bytes, as concatenated gzip members of 64 MiB each (which gzip readers take as one
     * stream), so that generating the bomb costs the test one member's compression.
     */
    private static InputStream gzipOfZeros(long size) {
        ByteArrayOutputStream member = new ByteArrayOutputStream();
        try (GZIPOutputStream gz = new GZIPOutputStream(member, 1 << 16)) {
            byte[] zeros = new byte[1 << 20];
            for (int i = 0; i < 64; i++) {
                gz.write(zeros);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        byte[] bytes = member.toByteArray();
        long members = size / (64 * MIB);
        return new SequenceInputStream(new Enumeration<>() {
            private long sent;

            @Override
            public boolean hasMoreElements() {
                return sent < members;
            }

            @Override
            public InputStream nextElement() {
                sent++;
                return new ByteArrayInputStream(bytes);
            }
        });
    }

    @Test
    void acceptsChunkOfExactly50MiB() {
        long before = pipeline.accepted();
        RelayClient.Answer answer = client.postStream(PATH, () -> chunkEnvelope(50 * MIB), "X-Sentry-Auth", AUTH);
        assertEquals(200, answer.status(), answer.raw());
        assertEquals(before + 1, pipeline.accepted());
    }

    @Test
    void refusesChunkOf50MiBAndOneByteWith413() {
        RelayClient.Answer answer = client.postStream(PATH, () -> chunkEnvelope(50 * MIB + 1), "X-Sentry-Auth", AUTH);
        assertEquals(413, answer.status(), answer.raw());
        assertEquals(SizeLimitsTest.CHUNK_413, answer.detail());
    }

    @Test
    void takesOneEventOfAtMost1MiBAsRelayDoes() {
        // relay-server/src/utils/sizes.rs:28 at 03742994d954c8ce034263b9203de83beadc9506, max_event_size 1 MiB
        byte[] event = new byte[(int) MIB];
        java.util.Arrays.fill(event, (byte) ' ');
        byte[] exactly = Envelopes.withItem(Envelopes.header(), "{\"type\":\"event\",\"length\":" + MIB + "}", event);
        assertEquals(200, client.post(PATH, exactly, "X-Sentry-Auth", AUTH).status());
        byte[] over = Envelopes.withItem(Envelopes.header(), "{\"type\":\"event\",\"length\":" + (MIB + 1) + "}",
                java.util.Arrays.copyOf(event, (int) MIB + 1));
        RelayClient.Answer answer = client.post(PATH, over, "X-Sentry-Auth", AUTH);
        assertEquals(413, answer.status(), answer.raw());
        assertEquals("envelope exceeded size limits for type 'event' "
                + "(https://develop.sentry.dev/sdk/envelopes/#size-limits)", answer.detail());
    }

    @Test
    void refusesGzipBombOf10GiBWith413WithoutHoldingIt() throws IOException {
        List<MemoryPoolMXBean> heap = ManagementFactory.getMemoryPoolMXBeans().stream()
                .filter(pool -> pool.getType() == MemoryType.HEAP).toList();
        System.gc();
        long before = heap.stream().mapToLong(pool -> pool.getUsage().getUsed()).sum();
        heap.forEach(MemoryPoolMXBean::resetPeakUsage);
        long start = System.nanoTime();
        InputStream bomb = gzipOfZeros(10 * 1024 * MIB);
        try {
            RelayClient.Answer answer = client.postStream(PATH, () -> bomb, "X-Sentry-Auth", AUTH,
                    "Content-Encoding", "gzip");
            assertEquals(413, answer.status(), answer.raw());
            assertEquals("failed to read request body", answer.detail());
        } finally {
            bomb.close();
        }
        long growth = heap.stream().mapToLong(pool -> pool.getPeakUsage().getUsed()).sum() - before;
        System.out.printf("gzip bomb (10 GiB of zeros) refused in %d ms; heap grew by at most %d MiB over the %d MiB "
                + "in use before (max heap %d MiB)%n", (System.nanoTime() - start) / 1_000_000, growth / MIB,
                before / MIB, Runtime.getRuntime().maxMemory() / MIB);
        // the decoded envelope limit is 200 MiB: a relay that held what it decoded up to the limit would need it all,
        // one that streams needs its compressed body (10 MiB) and buffers
        assertTrue(growth < DECODED_LIMIT / 4, "heap grew by " + growth / MIB + " MiB");
    }
}
