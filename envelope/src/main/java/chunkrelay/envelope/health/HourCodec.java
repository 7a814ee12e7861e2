package chunkrelay.envelope.health;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.Optional;

/**
 * A replica's counts of an hour as stored: a format number, then per SDK its name, version, platform, whether its
 * sessions were capped, its minutes (minute of the hour, then its counters by name) and its profiler ids with their
 * masks of minutes. Counters go by name, so that a reader of another version sums those it knows.
 */
final class HourCodec {
    private static final int FORMAT = 1;

    private HourCodec() {
    }

    static byte[] encode(HourCounts counts) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            DataOutputStream out = new DataOutputStream(bytes);
            out.writeInt(FORMAT);
            out.writeInt(counts.sdks().size());
            for (SdkKey sdk : counts.sdks()) {
                out.writeUTF(sdk.sdk());
                out.writeUTF(sdk.version());
                out.writeUTF(sdk.platform());
                out.writeBoolean(counts.sessionsCapped(sdk));
                Map<Integer, Map<String, Long>> minutes = counts.counters(sdk);
                out.writeInt(minutes.size());
                for (Map.Entry<Integer, Map<String, Long>> minute : minutes.entrySet()) {
                    out.writeByte(minute.getKey());
                    out.writeInt(minute.getValue().size());
                    for (Map.Entry<String, Long> counter : minute.getValue().entrySet()) {
                        out.writeUTF(counter.getKey());
                        out.writeLong(counter.getValue());
                    }
                }
                Map<String, Long> sessions = counts.sessions(sdk);
                out.writeInt(sessions.size());
                for (Map.Entry<String, Long> session : sessions.entrySet()) {
                    out.writeUTF(session.getKey());
                    out.writeLong(session.getValue());
                }
            }
            out.flush();
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The counts as written; empty for bytes that do not decode (another format's, or damaged). */
    static Optional<HourCounts> decode(byte[] bytes) {
        try {
            DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
            if (in.readInt() != FORMAT) {
                return Optional.empty();
            }
            HourCounts counts = new HourCounts();
            int sdks = in.readInt();
            for (int s = 0; s < sdks; s++) {
                SdkKey sdk = new SdkKey(in.readUTF(), in.readUTF(), in.readUTF());
                if (in.readBoolean()) {
                    counts.capSessions(sdk);
                }
                int minutes = in.readInt();
                for (int m = 0; m < minutes; m++) {
                    int minute = in.readByte();
                    int counters = in.readInt();
                    for (int c = 0; c < counters; c++) {
                        counts.add(sdk, minute, in.readUTF(), in.readLong());
                    }
                }
                int sessions = in.readInt();
                for (int i = 0; i < sessions; i++) {
                    counts.mergeSession(sdk, in.readUTF(), in.readLong());
                }
            }
            if (in.read() != -1) {
                throw new IOException("bytes after the counts");
            }
            return Optional.of(counts);
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }
}
