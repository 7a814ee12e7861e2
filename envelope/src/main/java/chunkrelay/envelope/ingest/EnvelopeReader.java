package chunkrelay.envelope.ingest;

import chunkrelay.envelope.errors.RelayError;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.async.ByteArrayFeeder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.util.TokenBuffer;
import io.micronaut.http.HttpStatus;

import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Reads Sentry's envelope wire format from a stream, with Relay's rules, without holding more than one header
 * and the payload asked for:
 * <ul>
 *   <li>a header is one JSON object, optionally preceded by whitespace, followed by {@code \n} or the end of the
 *       body ({@code \r\n} is an error);</li>
 *   <li>an item payload with {@code length} is exactly that many bytes, then {@code \n} or the end;</li>
 *   <li>an item payload without {@code length} runs to the next {@code \n} or the end;</li>
 *   <li>after the last item the body ends; a further blank line is an error (a header that never comes).</li>
 * </ul>
 * Every violation is a {@link RelayError} with Relay's wording. The stream itself may throw {@link RelayError}s
 * (limits, decoding) which pass through.
 */
public final class EnvelopeReader {
    private static final JsonFactory JSON = new JsonFactory();
    private static final ObjectMapper MAPPER = new ObjectMapper(JSON);
    private static final int BUFFER = 64 * 1024;

    private final InputStream in;
    private final int maxHeaderBytes;
    private final byte[] buf = new byte[BUFFER];
    private int pos;
    private int lim;
    private boolean eof;

    /** The item whose payload is next; null when there is none pending. */
    private ItemHeader pending;
    /** Whether the pending item's header ended at the end of the body rather than with {@code \n}. */
    private boolean pendingHeaderAtEof;

    public EnvelopeReader(InputStream in, int maxHeaderBytes) {
        this.in = in;
        this.maxHeaderBytes = maxHeaderBytes;
    }

    /** The envelope header. An empty body is {@code empty request body}. */
    public ObjectNode readHeaders() {
        if (!ensure()) {
            throw new RelayError(HttpStatus.BAD_REQUEST, "empty request body");
        }
        ObjectNode headers = readJsonObject(true);
        requireTermination();
        return headers;
    }

    /** The next item's header, or null at the end of the body. The previous item's payload must have been taken. */
    public ItemHeader nextItem() {
        if (pending != null) {
            throw new IllegalStateException("the payload of the previous item was not read");
        }
        if (!ensure()) {
            return null;
        }
        ObjectNode json = readJsonObject(false);
        pendingHeaderAtEof = !requireTermination();
        pending = ItemHeader.from(json);
        return pending;
    }

    /**
     * Reads the pending payload into memory when it has at most {@code max} bytes; a larger one is skipped and
     * null returned. Either way its size is then {@link #lastPayloadSize()}.
     */
    public byte[] readPayload(long max) {
        return takePayload(max, bytes -> { });
    }

    /** Like {@link #readPayload(long)}, claiming every byte it holds from a budget first. */
    public byte[] readPayload(long max, PayloadBudget budget) {
        return takePayload(max, budget);
    }

    /** Memory a payload may take; refuses (throws) when there is none left. */
    public interface PayloadBudget {
        void reserve(long bytes);
    }

    /** Skips the pending payload without keeping it; returns its size. */
    public long skipPayload() {
        takePayload(-1, bytes -> { });
        return lastPayloadSize;
    }

    private long lastPayloadSize;

    /** The size of the payload most recently read or skipped. */
    public long lastPayloadSize() {
        return lastPayloadSize;
    }

    private byte[] takePayload(long max, PayloadBudget budget) {
        ItemHeader item = pending;
        if (item == null) {
            throw new IllegalStateException("no item pending");
        }
        pending = null;
        PayloadSink sink = new PayloadSink(max, budget);
        if (item.length() != null) {
            // a stated length within the limit is allocated once; a liar costs no more than an honest client
            sink.expect(item.length());
            long remaining = item.length();
            if (remaining > 0 && pendingHeaderAtEof) {
                throw RelayError.invalidEnvelope("unexpected end of file");
            }
            while (remaining > 0) {
                if (pos == lim && sink.collecting()) {
                    // past what is buffered, the decoder writes into the payload itself: no copy through the buffer
                    remaining -= readInto(sink, remaining);
                    continue;
                }
                if (!ensure()) {
                    throw RelayError.invalidEnvelope("unexpected end of file");
                }
                int n = (int) Math.min(remaining, lim - pos);
                sink.write(buf, pos, n);
                pos += n;
                remaining -= n;
            }
            requireTermination();
        } else if (!pendingHeaderAtEof) {
            while (ensure()) {
                int newline = indexOfNewline(buf, pos, lim);
                int end = newline < 0 ? lim : newline;
                sink.write(buf, pos, end - pos);
                pos = end;
                if (newline >= 0) {
                    pos++;
                    break;
                }
            }
        }
        lastPayloadSize = sink.size;
        return sink.bytes();
    }

    /** Reads at most {@code remaining} bytes of the body straight into the sink's array; how many it read. */
    private int readInto(PayloadSink sink, long remaining) {
        try {
            int n;
            do {
                n = in.read(sink.bytes, (int) sink.size, (int) Math.min(remaining, sink.bytes.length - sink.size));
            } while (n == 0);
            if (n < 0) {
                eof = true;
                throw RelayError.invalidEnvelope("unexpected end of file");
            }
            sink.size += n;
            return n;
        } catch (IOException e) {
            throw RelayError.invalidBody(e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
        }
    }

    /** Consumes the {@code \n} after a header or payload; returns false at the end of the body instead. */
    private boolean requireTermination() {
        if (!ensure()) {
            return false;
        }
        if (buf[pos] != '\n') {
            throw RelayError.invalidEnvelope("missing newline after header or payload");
        }
        pos++;
        return true;
    }

    /**
     * One JSON object, fed to a non-blocking parser chunk by chunk so it is read exactly to its closing brace,
     * whatever follows; leading whitespace (blank lines too) is skipped as a JSON reader does.
     */
    private ObjectNode readJsonObject(boolean envelopeHeader) {
        String what = envelopeHeader ? "invalid envelope header" : "invalid item header";
        while (true) {
            if (!ensure()) {
                throw RelayError.invalidEnvelope(envelopeHeader ? "missing envelope header" : "unexpected end of file");
            }
            byte b = buf[pos];
            if (b == ' ' || b == '\t' || b == '\n' || b == '\r') {
                pos++;
            } else {
                break;
            }
        }
        try (JsonParser parser = JSON.createNonBlockingByteArrayParser()) {
            ByteArrayFeeder feeder = (ByteArrayFeeder) parser.getNonBlockingInputFeeder();
            TokenBuffer tokens = new TokenBuffer(MAPPER, false);
            long fed = 0;
            int depth = 0;
            while (true) {
                int chunkStart = pos;
                if (ensure()) {
                    int n = (int) Math.min(lim - pos, maxHeaderBytes + 1L - fed);
                    if (n <= 0) {
                        throw RelayError.invalidEnvelope(what, "header longer than " + maxHeaderBytes + " bytes");
                    }
                    feeder.feedInput(buf, pos, pos + n);
                    fed += n;
                    pos += n;
                } else {
                    feeder.endOfInput();
                }
                JsonToken token;
                while ((token = parser.nextToken()) != JsonToken.NOT_AVAILABLE) {
                    if (token == null) {
                        throw RelayError.invalidEnvelope(what, "EOF while parsing a value");
                    }
                    if (depth == 0 && token != JsonToken.START_OBJECT) {
                        throw RelayError.invalidEnvelope(what, "expected a JSON object, found " + describe(token));
                    }
                    tokens.copyCurrentEvent(parser);
                    if (token.isStructStart()) {
                        depth++;
                    } else if (token.isStructEnd()) {
                        depth--;
                    }
                    if (depth == 0) {
                        long end = parser.currentLocation().getByteOffset();
                        // give back what was fed past the closing brace
                        pos = chunkStart + (int) (end - (fed - (pos - chunkStart)));
                        JsonNode node = MAPPER.readTree(tokens.asParser());
                        return (ObjectNode) node;
                    }
                }
            }
        } catch (IOException e) {
            throw RelayError.invalidEnvelope(what, jsonMessage(e));
        }
    }

    private static String describe(JsonToken token) {
        return switch (token) {
            case START_ARRAY -> "an array";
            case VALUE_STRING -> "a string";
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "a number";
            case VALUE_TRUE, VALUE_FALSE -> "a boolean";
            case VALUE_NULL -> "null";
            default -> token.name();
        };
    }

    static String jsonMessage(IOException e) {
        String message = e instanceof com.fasterxml.jackson.core.JsonProcessingException json
                ? json.getOriginalMessage() : e.getMessage();
        return message == null ? e.getClass().getSimpleName() : message;
    }

    /** True when at least one byte is buffered, reading more if needed. */
    private boolean ensure() {
        if (pos < lim) {
            return true;
        }
        if (eof) {
            return false;
        }
        try {
            int n;
            do {
                n = in.read(buf, 0, buf.length);
            } while (n == 0);
            if (n < 0) {
                eof = true;
                return false;
            }
            pos = 0;
            lim = n;
            return true;
        } catch (IOException e) {
            throw RelayError.invalidBody(e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
        }
    }

    private static final VarHandle WORDS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long NEWLINES = 0x0a0a0a0a0a0a0a0aL;
    private static final long ONES = 0x0101010101010101L;
    private static final long HIGH_BITS = 0x8080808080808080L;

    /**
     * The first {@code \n} in {@code bytes[from, to)}, or -1: eight bytes at a time (a byte equal to the newline
     * turns to zero under the xor, and the classic zero-byte test finds the lowest), as a payload without a length
     * is scanned to its end.
     */
    static int indexOfNewline(byte[] bytes, int from, int to) {
        int i = from;
        for (; i + Long.BYTES <= to; i += Long.BYTES) {
            long word = (long) WORDS.get(bytes, i) ^ NEWLINES;
            long zeroBytes = (word - ONES) & ~word & HIGH_BITS;
            if (zeroBytes != 0) {
                return i + (Long.numberOfTrailingZeros(zeroBytes) >>> 3);
            }
        }
        for (; i < to; i++) {
            if (bytes[i] == '\n') {
                return i;
            }
        }
        return -1;
    }

    /**
     * Collects a payload up to a limit, then only counts: into one array of its stated length, or, without one, into
     * fixed-size segments joined once at the end (a doubling array would copy it about twice over while growing).
     */
    private static final class PayloadSink {
        private static final int SEGMENT = 64 * 1024;

        private final long max;
        private final PayloadBudget budget;
        /** The payload, when its length was stated and within the limit. */
        private byte[] bytes;
        private final List<byte[]> segments = new ArrayList<>();
        private int inLastSegment;
        private long size;
        private boolean overLimit;

        PayloadSink(long max, PayloadBudget budget) {
            this.max = max;
            this.budget = budget;
        }

        void expect(long length) {
            if (max >= 0 && length <= max) {
                budget.reserve(length);
                bytes = new byte[(int) length];
            }
        }

        /** Whether the payload goes into one array of its stated length, which a reader may fill directly. */
        boolean collecting() {
            return bytes != null && !overLimit;
        }

        void write(byte[] src, int off, int len) {
            long newSize = size + len;
            if (overLimit || max < 0 || newSize > max) {
                overLimit = true;
                bytes = null;
                segments.clear();
            } else if (bytes != null) {
                System.arraycopy(src, off, bytes, (int) size, len);
            } else {
                while (len > 0) {
                    if (segments.isEmpty() || inLastSegment == SEGMENT) {
                        budget.reserve(SEGMENT);
                        segments.add(new byte[SEGMENT]);
                        inLastSegment = 0;
                    }
                    int n = Math.min(len, SEGMENT - inLastSegment);
                    System.arraycopy(src, off, segments.get(segments.size() - 1), inLastSegment, n);
                    inLastSegment += n;
                    off += n;
                    len -= n;
                }
            }
            size = newSize;
        }

        byte[] bytes() {
            if (max < 0 || overLimit) {
                return null;
            }
            if (bytes != null) {
                return bytes.length == size ? bytes : Arrays.copyOf(bytes, (int) size);
            }
            byte[] joined = new byte[(int) size];
            int at = 0;
            for (byte[] segment : segments) {
                int n = (int) Math.min(SEGMENT, size - at);
                System.arraycopy(segment, 0, joined, at, n);
                at += n;
            }
            return joined;
        }
    }
}
