package chunkrelay.envelope.ingest;

import chunkrelay.envelope.errors.RelayError;
import chunkrelay.envelope.telemetry.RelayMeter;

import com.aayushatharva.brotli4j.Brotli4jLoader;
import com.aayushatharva.brotli4j.decoder.BrotliInputStream;
import com.github.luben.zstd.ZstdInputStream;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.exceptions.ContentLengthExceededException;
import jakarta.inject.Singleton;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Locale;
import java.util.zip.GZIPInputStream;
import java.util.zip.InflaterInputStream;

/**
 * Decodes a request body by its {@code Content-Encoding}, streaming, in one place for every encoding (the
 * server's own gzip/deflate decoding is turned off). The decoded stream counts bytes and refuses, with 413, more
 * than the envelope limit; a body that fails to decode is refused with 400.
 */
@Singleton
class ContentDecoding {
    private static final int BUFFER = 64 * 1024;

    private final RelayLimits limits;
    private final Counter wireBytes;
    private final Counter decodedBytes;

    ContentDecoding(RelayLimits limits, MeterRegistry meters) {
        this.limits = limits;
        this.wireBytes = RelayMeter.ENVELOPE_RECEIVED_BYTES.counter(meters, "wire");
        this.decodedBytes = RelayMeter.ENVELOPE_RECEIVED_BYTES.counter(meters, "decoded");
    }

    /** The encoding a header names; "", "utf-8" (sent by some SDKs) and no header mean none. */
    static Encoding encodingOf(String header) {
        if (header == null) {
            return Encoding.IDENTITY;
        }
        return switch (header.trim().toLowerCase(Locale.ROOT)) {
            case "", "utf-8", "identity" -> Encoding.IDENTITY;
            case "gzip", "x-gzip" -> Encoding.GZIP;
            case "deflate" -> Encoding.DEFLATE;
            case "br" -> Encoding.BROTLI;
            case "zstd" -> Encoding.ZSTD;
            default -> throw new RelayError(HttpStatus.UNSUPPORTED_MEDIA_TYPE, "unsupported content encoding",
                    "'" + header + "' is not one of gzip, x-gzip, deflate, br, zstd, identity");
        };
    }

    enum Encoding { IDENTITY, GZIP, DEFLATE, BROTLI, ZSTD }

    /** The decoded body, bounded by the envelope limit; reading it throws only {@link RelayError}s. */
    InputStream decode(Encoding encoding, InputStream wire) {
        InputStream source = new WireBody(wire, wireBytes);
        InputStream decoded;
        try {
            decoded = switch (encoding) {
                case IDENTITY -> source;
                case GZIP -> new GZIPInputStream(source, BUFFER);
                case DEFLATE -> new InflaterInputStream(source, new java.util.zip.Inflater(), BUFFER);
                case BROTLI -> {
                    Brotli4jLoader.ensureAvailability();
                    yield new BrotliInputStream(source, BUFFER);
                }
                case ZSTD -> new ZstdInputStream(source);
            };
        } catch (IOException e) {
            throw RelayError.invalidBody(describe(e));
        }
        return new DecodedBody(decoded, limits.maxEnvelopeBytes(), decodedBytes);
    }

    private static String describe(IOException e) {
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }

    /** The body as received, counted; the server's wire limit (max-request-size) becomes a 413. */
    private static final class WireBody extends FilterInputStream {
        private final Counter received;

        WireBody(InputStream in, Counter received) {
            super(in);
            this.received = received;
        }

        @Override
        public int read() throws IOException {
            try {
                int b = super.read();
                if (b >= 0) {
                    received.increment();
                }
                return b;
            } catch (IOException e) {
                throw translate(e);
            }
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            try {
                int n = super.read(b, off, len);
                if (n > 0) {
                    received.increment(n);
                }
                return n;
            } catch (IOException e) {
                throw translate(e);
            }
        }

        private static IOException translate(IOException e) {
            for (Throwable t = e; t != null; t = t.getCause()) {
                if (t instanceof ContentLengthExceededException) {
                    throw RelayError.bodyTooLarge();
                }
            }
            return e;
        }
    }

    /** Counts decoded bytes against the envelope limit and turns decoding failures into 400s. */
    private static final class DecodedBody extends InputStream {
        private final InputStream in;
        private final long max;
        private final Counter decoded;
        private long count;

        DecodedBody(InputStream in, long max, Counter decoded) {
            this.in = in;
            this.max = max;
            this.decoded = decoded;
        }

        @Override
        public int read() {
            byte[] one = new byte[1];
            int n = read(one, 0, 1);
            return n < 0 ? -1 : one[0] & 0xFF;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            if (len == 0) {
                return 0;
            }
            // read at most one byte past the limit: enough to know it was crossed, no more
            long allowed = Math.max(1, Math.min(len, max - count + 1));
            int n;
            try {
                n = in.read(b, off, (int) allowed);
            } catch (IOException e) {
                throw RelayError.invalidBody(describe(e));
            } catch (RuntimeException e) {
                if (e instanceof RelayError) {
                    throw e;
                }
                // decoders signal some corruptions with unchecked exceptions
                throw RelayError.invalidBody(e.toString());
            }
            if (n > 0) {
                count += n;
                decoded.increment(n);
                if (count > max) {
                    throw RelayError.bodyTooLarge();
                }
            }
            return n;
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }
}
