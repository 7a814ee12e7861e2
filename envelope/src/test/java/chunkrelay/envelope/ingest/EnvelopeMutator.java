package chunkrelay.envelope.ingest;

import chunkrelay.chunk.fixtures.Fixtures;
import chunkrelay.chunk.fixtures.SdkRequest;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Mutated and truncated envelopes built from the recorded SDK envelopes, reproducible from a seed. */
final class EnvelopeMutator {
    private static final byte[] SPECIAL = "\n\r{}[]\":,0123456789 \t-.e".getBytes(StandardCharsets.UTF_8);
    private static final Pattern LENGTH = Pattern.compile("\"length\":(\\d+)");

    private final Random random;
    private final List<byte[]> envelopes;

    EnvelopeMutator(long seed) {
        this.random = new Random(seed);
        this.envelopes = Fixtures.sdkRequests().stream().map(SdkRequest::envelope).toList();
    }

    Random random() {
        return random;
    }

    byte[] next() {
        byte[] bytes = pick();
        int mutations = 1 + random.nextInt(3);
        for (int i = 0; i < mutations; i++) {
            bytes = mutate(bytes);
        }
        return bytes;
    }

    private byte[] pick() {
        return envelopes.get(random.nextInt(envelopes.size()));
    }

    private int position(byte[] bytes) {
        // mutate the headers (the first bytes) most of the time: that is where the format lives
        if (bytes.length == 0) {
            return 0;
        }
        return random.nextInt(4) == 0 ? random.nextInt(bytes.length) : random.nextInt(Math.min(bytes.length, 600));
    }

    private byte[] mutate(byte[] bytes) {
        switch (random.nextInt(10)) {
            case 0 -> {
                return Arrays.copyOf(bytes, bytes.length == 0 ? 0 : random.nextInt(bytes.length));
            }
            case 1 -> {
                byte[] out = bytes.clone();
                for (int i = 0, n = 1 + random.nextInt(8); i < n && out.length > 0; i++) {
                    out[position(out)] ^= (byte) (1 << random.nextInt(8));
                }
                return out;
            }
            case 2 -> {
                byte b = random.nextBoolean() ? SPECIAL[random.nextInt(SPECIAL.length)] : (byte) random.nextInt(256);
                return splice(bytes, position(bytes), 0, new byte[] {b});
            }
            case 3 -> {
                int at = position(bytes);
                return splice(bytes, at, Math.min(bytes.length - at, 1 + random.nextInt(64)), new byte[0]);
            }
            case 4 -> {
                int at = position(bytes);
                int len = Math.min(bytes.length - at, 1 + random.nextInt(128));
                return splice(bytes, at, 0, Arrays.copyOfRange(bytes, at, at + len));
            }
            case 5 -> {
                return changeLength(bytes);
            }
            case 6 -> {
                int newline = indexOf(bytes, (byte) '\n', position(bytes));
                if (newline < 0) {
                    return bytes;
                }
                return random.nextBoolean() ? splice(bytes, newline, 0, new byte[] {'\r'})
                        : splice(bytes, newline, 1, new byte[0]);
            }
            case 7 -> {
                byte[] other = pick();
                int cut = position(bytes);
                int from = other.length == 0 ? 0 : random.nextInt(other.length);
                return concat(Arrays.copyOf(bytes, cut), Arrays.copyOfRange(other, from, other.length));
            }
            case 8 -> {
                byte[] tail = random.nextBoolean() ? "\n".repeat(1 + random.nextInt(3)).getBytes(StandardCharsets.UTF_8)
                        : ("{\"type\":\"profile_chunk\",\"length\":" + random.nextInt(50) + "}\n").getBytes(StandardCharsets.UTF_8);
                return concat(bytes, tail);
            }
            default -> {
                String[] values = {"null", "\"\"", "42", "\"9ec79c33-ec99-42ab-8353-589fcb2e04dc\"", "{}", "[]",
                        "\"https://c0ffee5e1ec7ab1e5a11ab1e0b5e55ed@o.example/1\"", "\"bad\"", "\"2026-13-40T00:00:00Z\""};
                String[] keys = {"event_id", "dsn", "sent_at", "sdk", "trace", "version", "origin"};
                String field = "\"" + keys[random.nextInt(keys.length)] + "\":" + values[random.nextInt(values.length)] + ",";
                return splice(bytes, Math.min(1, bytes.length), 0, field.getBytes(StandardCharsets.UTF_8));
            }
        }
    }

    private byte[] changeLength(byte[] bytes) {
        String head = new String(bytes, 0, Math.min(bytes.length, 4096), StandardCharsets.ISO_8859_1);
        Matcher m = LENGTH.matcher(head);
        if (!m.find()) {
            return bytes;
        }
        long value = Long.parseLong(m.group(1));
        long[] choices = {0, value - 1, value + 1, value * 2, 4294967295L, 4294967296L, random.nextInt(1000)};
        String replacement = Long.toString(Math.max(0, choices[random.nextInt(choices.length)]));
        return splice(bytes, m.start(1), m.end(1) - m.start(1), replacement.getBytes(StandardCharsets.ISO_8859_1));
    }

    private static int indexOf(byte[] bytes, byte b, int from) {
        for (int i = from; i < bytes.length; i++) {
            if (bytes[i] == b) {
                return i;
            }
        }
        return -1;
    }

    private static byte[] splice(byte[] bytes, int at, int remove, byte[] insert) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(bytes.length + insert.length);
        out.write(bytes, 0, at);
        out.writeBytes(insert);
        out.write(bytes, at + remove, bytes.length - at - remove);
        return out.toByteArray();
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
