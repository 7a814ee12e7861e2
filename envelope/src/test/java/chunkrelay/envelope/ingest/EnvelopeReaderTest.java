package chunkrelay.envelope.ingest;

import chunkrelay.envelope.errors.RelayError;
import chunkrelay.envelope.testing.RepeatingInputStream;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The wire format, with the cases of Relay's own envelope tests (relay-server/src/envelope/mod.rs) and more. */
class EnvelopeReaderTest {
    private static final String HEADER =
            "{\"event_id\":\"9ec79c33ec9942ab8353589fcb2e04dc\",\"dsn\":\"https://e12d836b15bb49d7bbf99e64295d995b:@sentry.io/42\"}";

    record Item(String type, byte[] payload) {
        String text() {
            return new String(payload, StandardCharsets.UTF_8);
        }
    }

    record Parsed(ObjectNode headers, List<Item> items) {
    }

    static Parsed parse(byte[] bytes) {
        return parse(new ByteArrayInputStream(bytes));
    }

    static Parsed parse(InputStream in) {
        EnvelopeReader reader = new EnvelopeReader(in, 1 << 20);
        ObjectNode headers = reader.readHeaders();
        List<Item> items = new ArrayList<>();
        ItemHeader item;
        while ((item = reader.nextItem()) != null) {
            items.add(new Item(item.type(), reader.readPayload(Long.MAX_VALUE)));
        }
        return new Parsed(headers, items);
    }

    static Parsed parse(String text) {
        return parse(text.getBytes(StandardCharsets.UTF_8));
    }

    static RelayError failure(String text) {
        return assertThrows(RelayError.class, () -> parse(text));
    }

    @Test
    void theNewlineSearchFindsTheFirstNewlineAtEveryOffsetAndAlignment() {
        java.util.Random random = new java.util.Random(19);
        for (int round = 0; round < 2_000; round++) {
            byte[] bytes = new byte[random.nextInt(40)];
            for (int i = 0; i < bytes.length; i++) {
                // bytes next to '\n' (0x09, 0x0b, 0x8a) and high bytes are where a word-wise search could slip
                int pick = random.nextInt(6);
                bytes[i] = pick == 0 ? (byte) '\n' : pick == 1 ? 0x0b : pick == 2 ? (byte) 0x8a : pick == 3 ? 0x09
                        : (byte) random.nextInt(256);
            }
            int from = bytes.length == 0 ? 0 : random.nextInt(bytes.length + 1);
            int to = from + random.nextInt(bytes.length - from + 1);
            int expected = -1;
            for (int i = from; i < to && expected < 0; i++) {
                if (bytes[i] == '\n') {
                    expected = i;
                }
            }
            assertEquals(expected, EnvelopeReader.indexOfNewline(bytes, from, to), java.util.Arrays.toString(bytes)
                    + " from " + from + " to " + to);
        }
    }

    @Test
    void aPayloadWithoutLengthSpanningManyBuffersIsReadWhole() {
        byte[] payload = new byte[300_000];
        for (int i = 0; i < payload.length; i++) {
            payload[i] = (byte) ('a' + i % 26);
        }
        String envelope = HEADER + "\n{\"type\":\"profile_chunk\"}\n" + new String(payload, StandardCharsets.US_ASCII)
                + "\n{\"type\":\"session\"}\n{}\n";
        Parsed parsed = parse(envelope);
        assertEquals(2, parsed.items().size());
        assertArrayEquals(payload, parsed.items().get(0).payload());
        assertEquals("{}", parsed.items().get(1).text());
    }

    @Test
    void aPayloadWithLengthSpanningManyBuffersIsReadWholeFromAStreamGivingFewBytesAtATime() {
        byte[] payload = new byte[300_000];
        for (int i = 0; i < payload.length; i++) {
            payload[i] = (byte) (i % 251);
        }
        byte[] envelope = concat((HEADER + "\n{\"type\":\"profile_chunk\",\"length\":" + payload.length + "}\n")
                .getBytes(StandardCharsets.UTF_8), payload, "\n{\"type\":\"session\"}\n{}\n".getBytes(StandardCharsets.UTF_8));
        Parsed parsed = parse(new ByteArrayInputStream(envelope) {
            @Override
            public synchronized int read(byte[] b, int off, int len) {
                return super.read(b, off, Math.min(len, 1000));
            }
        });
        assertEquals(2, parsed.items().size());
        assertArrayEquals(payload, parsed.items().get(0).payload());
        assertEquals("{}", parsed.items().get(1).text());
    }

    @Test
    void aLengthPastTheEndOfABodyLongerThanTheBufferIsUnexpectedEndOfFile() {
        byte[] envelope = concat((HEADER + "\n{\"type\":\"profile_chunk\",\"length\":300000}\n")
                .getBytes(StandardCharsets.UTF_8), new byte[200_000]);
        RelayError error = assertThrows(RelayError.class, () -> parse(envelope));
        assertEquals(List.of("unexpected end of file"), error.causes());
    }

    private static byte[] concat(byte[]... parts) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (byte[] part : parts) {
            out.writeBytes(part);
        }
        return out.toByteArray();
    }

    @Test
    void readsHeaderOnlyEnvelopeWithoutTrailingNewline() {
        Parsed parsed = parse(HEADER);
        assertEquals("9ec79c33ec9942ab8353589fcb2e04dc", parsed.headers().get("event_id").asText());
        assertEquals(0, parsed.items().size());
    }

    @Test
    void readsHeaderOnlyEnvelopeWithTrailingNewline() {
        assertEquals(0, parse(HEADER + "\n").items().size());
    }

    @Test
    void readsEmptyItemsFollowedByNewlines() {
        Parsed parsed = parse(HEADER + "\n{\"type\":\"attachment\",\"length\":0}\n\n{\"type\":\"attachment\",\"length\":0}\n\n");
        assertEquals(2, parsed.items().size());
        assertEquals(0, parsed.items().get(0).payload().length);
        assertEquals(0, parsed.items().get(1).payload().length);
    }

    @Test
    void readsEmptyItemsEndingTheBody() {
        Parsed parsed = parse(HEADER + "\n{\"type\":\"attachment\",\"length\":0}\n\n{\"type\":\"attachment\",\"length\":0}");
        assertEquals(2, parsed.items().size());
        assertEquals(0, parsed.items().get(1).payload().length);
    }

    @Test
    void readsPayloadWithoutLengthToTheNextNewline() {
        Parsed parsed = parse(HEADER + "\n{\"type\":\"attachment\"}\nhelloworld\n");
        assertEquals(1, parsed.items().size());
        assertEquals("helloworld", parsed.items().get(0).text());
    }

    @Test
    void readsPayloadWithoutLengthToTheEndOfTheBody() {
        assertEquals("helloworld", parse(HEADER + "\n{\"type\":\"attachment\"}\nhelloworld").items().get(0).text());
    }

    @Test
    void readsItemHeaderEndingTheBodyAsEmptyItem() {
        Parsed parsed = parse(HEADER + "\n{\"type\":\"attachment\"}");
        assertEquals(1, parsed.items().size());
        assertEquals(0, parsed.items().get(0).payload().length);
    }

    @Test
    void readsPayloadsWithLengthIncludingNewlinesAndCarriageReturns() {
        byte[] bytes = concat(HEADER + "\n{\"type\":\"attachment\",\"length\":10,\"content_type\":\"text/plain\",\"filename\":\"hello.txt\"}\n",
                new byte[] {(byte) 0xef, (byte) 0xbb, (byte) 0xbf}, "Hello\r\n\n"
                        + "{\"type\":\"event\",\"length\":41,\"content_type\":\"application/json\",\"filename\":\"application.log\"}\n"
                        + "{\"message\":\"hello world\",\"level\":\"error\"}\n");
        Parsed parsed = parse(bytes);
        assertEquals(2, parsed.items().size());
        assertArrayEquals(concat("", new byte[] {(byte) 0xef, (byte) 0xbb, (byte) 0xbf}, "Hello\r\n"),
                parsed.items().get(0).payload());
        assertEquals("event", parsed.items().get(1).type());
        assertEquals("{\"message\":\"hello world\",\"level\":\"error\"}", parsed.items().get(1).text());
    }

    @Test
    void acceptsUnknownItemTypes() {
        Parsed parsed = parse(HEADER + "\n{\"type\":\"invalid_unknown\"}\nhelloworld\n{\"type\":\"replay_video\"}\nhelloworld\n");
        assertEquals(List.of("invalid_unknown", "replay_video"), parsed.items().stream().map(Item::type).toList());
    }

    @Test
    void refusesEmptyBody() {
        RelayError error = failure("");
        assertEquals(400, error.status().getCode());
        assertEquals("empty request body", error.detail());
    }

    @Test
    void refusesWhitespaceOnlyBodyAsMissingHeader() {
        assertEquals(List.of("missing envelope header"), failure(" \n\n").causes());
    }

    @Test
    void refusesCarriageReturnAfterEnvelopeHeader() {
        RelayError error = failure(HEADER + "\r\n{\"type\":\"attachment\"}\nhello\n");
        assertEquals("invalid event envelope", error.detail());
        assertEquals(List.of("missing newline after header or payload"), error.causes());
    }

    @Test
    void refusesCarriageReturnAfterItemHeader() {
        assertEquals(List.of("missing newline after header or payload"),
                failure(HEADER + "\n{\"type\":\"attachment\",\"length\":5}\r\nhello\n").causes());
    }

    @Test
    void refusesLengthPastTheEnd() {
        assertEquals(List.of("unexpected end of file"),
                failure(HEADER + "\n{\"type\":\"attachment\",\"length\":50}\nhello\n").causes());
    }

    @Test
    void refusesLengthAfterHeaderEndingTheBody() {
        assertEquals(List.of("unexpected end of file"), failure(HEADER + "\n{\"type\":\"attachment\",\"length\":1}").causes());
    }

    @Test
    void refusesPayloadNotFollowedByNewline() {
        assertEquals(List.of("missing newline after header or payload"),
                failure(HEADER + "\n{\"type\":\"attachment\",\"length\":3}\nhello\n").causes());
    }

    @Test
    void refusesBlankLineAfterTheLastItem() {
        assertEquals(List.of("unexpected end of file"),
                failure(HEADER + "\n{\"type\":\"attachment\"}\nhello\n\n").causes());
    }

    @Test
    void refusesBlankLineAfterHeaderOnlyEnvelope() {
        assertEquals(List.of("unexpected end of file"), failure(HEADER + "\n\n").causes());
    }

    @Test
    void skipsBlankLinesBeforeAnItemHeaderAsJsonWhitespace() {
        assertEquals("hello", parse(HEADER + "\n\n  {\"type\":\"attachment\"}\nhello").items().get(0).text());
    }

    @Test
    void readsHeaderSpanningLinesAsRelaysJsonStreamDoes() {
        assertEquals("hello", parse(HEADER + "\n{\"type\":\n\"attachment\"}\nhello").items().get(0).text());
    }

    @Test
    void refusesItemWithoutType() {
        RelayError error = failure(HEADER + "\n{\"length\":5}\nhello\n");
        assertEquals("invalid item header", error.causes().get(0));
    }

    @Test
    void refusesHeadersThatAreNotObjects() {
        assertEquals("invalid envelope header", failure("[1,2]\n").causes().get(0));
        assertEquals("invalid item header", failure(HEADER + "\n\"attachment\"\nhello").causes().get(0));
    }

    @Test
    void refusesInvalidJsonInHeaders() {
        assertEquals("invalid envelope header", failure("{\"event_id\":}\n").causes().get(0));
        assertEquals("invalid item header", failure(HEADER + "\n{\"type\":\"a\",}\nhello").causes().get(0));
        assertEquals("invalid envelope header", failure("{\"event_id\":\"9ec79c33ec9942ab8353589fcb2e04dc\"").causes().get(0));
    }

    @Test
    void refusesTextAfterHeaderOnTheSameLine() {
        assertEquals(List.of("missing newline after header or payload"),
                failure(HEADER + " \n{\"type\":\"attachment\"}\nhello").causes());
        assertEquals(List.of("missing newline after header or payload"),
                failure(HEADER + "\n{\"type\":\"attachment\"}{}\nhello").causes());
    }

    @Test
    void refusesMistypedItemHeaderFields() {
        assertEquals("invalid item header", failure(HEADER + "\n{\"type\":\"a\",\"length\":-1}\n").causes().get(0));
        assertEquals("invalid item header", failure(HEADER + "\n{\"type\":\"a\",\"length\":1.5}\nh").causes().get(0));
        assertEquals("invalid item header", failure(HEADER + "\n{\"type\":\"a\",\"length\":\"5\"}\nhello").causes().get(0));
        assertEquals("invalid item header", failure(HEADER + "\n{\"type\":5}\nhello").causes().get(0));
        assertEquals("invalid item header", failure(HEADER + "\n{\"type\":\"a\",\"platform\":1}\nhello").causes().get(0));
    }

    @Test
    void acceptsNullLengthAsNoLength() {
        assertEquals("hello", parse(HEADER + "\n{\"type\":\"a\",\"length\":null}\nhello\n").items().get(0).text());
    }

    @Test
    void refusesHeaderOverTheHeaderLimit() {
        EnvelopeReader reader = new EnvelopeReader(new ByteArrayInputStream(
                ("{\"a\":\"" + "x".repeat(5000) + "\"}\n").getBytes(StandardCharsets.UTF_8)), 1024);
        RelayError error = assertThrows(RelayError.class, reader::readHeaders);
        assertEquals("invalid envelope header", error.causes().get(0));
    }

    @Test
    void returnsNullForPayloadOverTheLimitAndCountsItsSize() {
        EnvelopeReader reader = new EnvelopeReader(new ByteArrayInputStream(
                (HEADER + "\n{\"type\":\"profile_chunk\"}\n0123456789\n{\"type\":\"a\",\"length\":3}\nabc")
                        .getBytes(StandardCharsets.UTF_8)), 1024);
        reader.readHeaders();
        reader.nextItem();
        assertNull(reader.readPayload(9));
        assertEquals(10, reader.lastPayloadSize());
        assertEquals("a", reader.nextItem().type());
        assertEquals(3, reader.skipPayload());
        assertNull(reader.nextItem());
    }

    @Test
    void skipsLargePayloadsStreamingWithoutHoldingThem() {
        long size = 100L * 1024 * 1024;
        InputStream body = new java.io.SequenceInputStream(java.util.Collections.enumeration(List.of(
                new ByteArrayInputStream((HEADER + "\n{\"type\":\"attachment\",\"length\":" + size + "}\n")
                        .getBytes(StandardCharsets.UTF_8)),
                new RepeatingInputStream((byte) 'x', size),
                new ByteArrayInputStream("\n{\"type\":\"attachment\"}\nend".getBytes(StandardCharsets.UTF_8)))));
        EnvelopeReader reader = new EnvelopeReader(body, 1024);
        reader.readHeaders();
        reader.nextItem();
        assertEquals(size, reader.skipPayload());
        reader.nextItem();
        assertArrayEquals("end".getBytes(StandardCharsets.UTF_8), reader.readPayload(100));
    }

    static byte[] concat(String a, byte[] b, String c) {
        byte[] first = a.getBytes(StandardCharsets.UTF_8);
        byte[] last = c.getBytes(StandardCharsets.UTF_8);
        byte[] out = new byte[first.length + b.length + last.length];
        System.arraycopy(first, 0, out, 0, first.length);
        System.arraycopy(b, 0, out, first.length, b.length);
        System.arraycopy(last, 0, out, first.length + b.length, last.length);
        return out;
    }
}
