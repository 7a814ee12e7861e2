package chunkrelay.bench;

import chunkrelay.chunk.ProfileChunk;
import chunkrelay.chunk.fixtures.SdkRequest;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;

/**
 * The recorded Java SDK chunk ({@code java-8.43.0/001}) as any profiler of a fleet sends it: its profiler id, chunk
 * id and release rewritten and every {@code timestamp} shifted, in one Jackson token pass that copies everything else
 * as it is. Also the sample times the relay keeps of it (after Relay's normalisation), so that a range's exact sample
 * count can be computed here without asking the relay.
 */
final class FleetChunk {
    private static final JsonFactory JSON = new JsonFactory();

    private final byte[] template;
    /** Every {@code timestamp} value of the template in the order it appears, read once (Unix nanoseconds). */
    private final long[] timestamps;
    /** The template's sample times after normalisation, sorted (Unix nanoseconds). */
    private final long[] sampleNanos;

    FleetChunk() {
        BenchChunks.Item java = BenchChunks.item(BenchChunks.JAVA);
        template = java.payload();
        timestamps = timestamps(template);
        ProfileChunk chunk = java.normalise();
        sampleNanos = new long[chunk.sampleCount()];
        for (int i = 0; i < sampleNanos.length; i++) {
            sampleNanos[i] = chunk.sampleTimestampNanos(i);
        }
        Arrays.sort(sampleNanos);
    }

    /** Samples the relay keeps of one chunk. */
    int samples() {
        return sampleNanos.length;
    }

    long firstSampleNanos() {
        return sampleNanos[0];
    }

    long lastSampleNanos() {
        return sampleNanos[sampleNanos.length - 1];
    }

    /** How many samples of the template shifted by {@code shiftNanos} lie in {@code [fromNanos, toNanos)}. */
    int samplesIn(long shiftNanos, long fromNanos, long toNanos) {
        return lowerBound(toNanos - shiftNanos) - lowerBound(fromNanos - shiftNanos);
    }

    private int lowerBound(long nanos) {
        int i = Arrays.binarySearch(sampleNanos, nanos);
        if (i < 0) {
            return -i - 1;
        }
        while (i > 0 && sampleNanos[i - 1] == nanos) {
            i--;
        }
        return i;
    }

    /** The chunk's JSON with the given ids and release, every timestamp moved by {@code shiftNanos}. */
    byte[] rewrite(String profilerId, String chunkId, String release, long shiftNanos) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(template.length + template.length / 8);
        try (JsonParser in = JSON.createParser(template); JsonGenerator gen = JSON.createGenerator(out)) {
            int depth = 0;
            int stamp = 0;
            char[] digits = new char[24];
            String field = null;
            for (JsonToken token = in.nextToken(); token != null; token = in.nextToken()) {
                switch (token) {
                    case START_OBJECT, START_ARRAY -> {
                        depth++;
                        gen.copyCurrentEvent(in);
                    }
                    case END_OBJECT, END_ARRAY -> {
                        depth--;
                        gen.copyCurrentEvent(in);
                    }
                    case FIELD_NAME -> {
                        field = in.currentName();
                        gen.copyCurrentEvent(in);
                    }
                    case VALUE_NUMBER_FLOAT, VALUE_NUMBER_INT -> {
                        if ("timestamp".equals(field)) {
                            // the chunk's own timestamp and every sample's, in the order read once in the constructor
                            gen.writeNumber(seconds(timestamps[stamp++] + shiftNanos, digits));
                        } else {
                            gen.copyCurrentEvent(in);
                        }
                    }
                    case VALUE_STRING -> {
                        String replaced = depth == 1 ? switch (field) {
                            case "profiler_id" -> profilerId;
                            case "chunk_id" -> chunkId;
                            case "release" -> release;
                            default -> null;
                        } : null;
                        if (replaced != null) {
                            gen.writeString(replaced);
                        } else {
                            gen.copyCurrentEvent(in);
                        }
                    }
                    default -> gen.copyCurrentEvent(in);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    /**
     * The POST of one envelope to the relay, with the recorded SDK request's path and its auth and user agent
     * headers, as that SDK sent it.
     */
    static HttpRequest post(URI relay, SdkRequest recorded, byte[] envelope) {
        HttpRequest.Builder request = HttpRequest.newBuilder(relay.resolve(recorded.pathAndQuery()))
                .timeout(Duration.ofSeconds(120)).POST(HttpRequest.BodyPublishers.ofByteArray(envelope))
                .header("Content-Type", "application/x-sentry-envelope");
        recorded.headers().stream().filter(h -> h.name().equalsIgnoreCase("X-Sentry-Auth")
                || h.name().equalsIgnoreCase("User-Agent")).forEach(h -> request.header(h.name(), h.value()));
        return request.build();
    }

    /** The envelope an SDK sends one chunk in (no gzip: the loopback client would spend more than it saves). */
    static byte[] envelope(String eventId, byte[] chunk) {
        String head = "{\"event_id\":\"" + eventId + "\",\"sdk\":{\"name\":\"sentry.java\",\"version\":\"8.43.0\"}}\n"
                + "{\"type\":\"profile_chunk\",\"platform\":\"java\",\"content_type\":\"application-json\",\"length\":"
                + chunk.length + "}\n";
        byte[] header = head.getBytes(StandardCharsets.UTF_8);
        byte[] envelope = Arrays.copyOf(header, header.length + chunk.length + 1);
        System.arraycopy(chunk, 0, envelope, header.length, chunk.length);
        envelope[envelope.length - 1] = '\n';
        return envelope;
    }

    /** The template's {@code timestamp} values in document order, exact decimals as the relay reads them. */
    private static long[] timestamps(byte[] json) {
        long[] found = new long[1024];
        int count = 0;
        try (JsonParser in = JSON.createParser(json)) {
            String field = null;
            for (JsonToken token = in.nextToken(); token != null; token = in.nextToken()) {
                if (token == JsonToken.FIELD_NAME) {
                    field = in.currentName();
                } else if (token.isNumeric() && "timestamp".equals(field)) {
                    if (count == found.length) {
                        found = Arrays.copyOf(found, count * 2);
                    }
                    found[count++] = new BigDecimal(in.getText()).movePointRight(9)
                            .setScale(0, RoundingMode.HALF_EVEN).longValueExact();
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return Arrays.copyOf(found, count);
    }

    /**
     * Plain decimal seconds with nine fraction digits (positive times only), which the relay reads back to the same
     * nanosecond; written by hand, since a formatter per sample would cost more than the whole token pass.
     */
    private static String seconds(long nanos, char[] digits) {
        int at = digits.length;
        long fraction = nanos % 1_000_000_000L;
        for (int i = 0; i < 9; i++) {
            digits[--at] = (char) ('0' + fraction % 10);
            fraction /= 10;
        }
        digits[--at] = '.';
        long whole = nanos / 1_000_000_000L;
        do {
            digits[--at] = (char) ('0' + whole % 10);
            whole /= 10;
        } while (whole > 0);
        return new String(digits, at, digits.length - at);
    }
}
