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
 * masks of minutes, then (from format 2) the profiler ids its transactions named, each with its minutes and their
 * transactions; then (from format 3) each profiler id that sent chunks with the intervals its chunks span. Counters go
 * by name, so that a reader of another version sums those it knows (the linked and linkable samples came as two more
 * counters in format 2, the uncovered transactions as one more in format 3: a part without them reads as none); a
 * part of format 1 names no ids, one of format 1 or 2 knows no session's times.
 */
final class HourCodec {
    private static final int FORMAT = 3;
    private static final int NO_COVERAGE = 2;
    private static final int NO_NAMED_IDS = 1;

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
                Map<String, Map<Integer, Long>> named = counts.named(sdk);
                out.writeInt(named.size());
                for (Map.Entry<String, Map<Integer, Long>> id : named.entrySet()) {
                    out.writeUTF(id.getKey());
                    out.writeInt(id.getValue().size());
                    for (Map.Entry<Integer, Long> minute : id.getValue().entrySet()) {
                        out.writeByte(minute.getKey());
                        out.writeLong(minute.getValue());
                    }
                }
            }
            out.writeInt(counts.coverage().size());
            for (Map.Entry<String, long[]> session : counts.coverage().entrySet()) {
                out.writeUTF(session.getKey());
                out.writeInt(session.getValue().length);
                for (long time : session.getValue()) {
                    out.writeLong(time);
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
            int format = in.readInt();
            if (format != FORMAT && format != NO_COVERAGE && format != NO_NAMED_IDS) {
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
                int named = format == NO_NAMED_IDS ? 0 : in.readInt();
                for (int i = 0; i < named; i++) {
                    String profilerId = in.readUTF();
                    int namedMinutes = in.readInt();
                    for (int m = 0; m < namedMinutes; m++) {
                        counts.named(sdk, in.readByte(), profilerId, in.readLong(), Integer.MAX_VALUE);
                    }
                }
            }
            if (format == FORMAT) {
                int covered = in.readInt();
                for (int i = 0; i < covered; i++) {
                    String profilerId = in.readUTF();
                    long[] intervals = new long[in.readInt()];
                    if (intervals.length % 2 != 0 || intervals.length > 2 * SessionCoverage.MAX_INTERVALS) {
                        throw new IOException("not a session's intervals");
                    }
                    for (int t = 0; t < intervals.length; t++) {
                        intervals[t] = in.readLong();
                    }
                    counts.mergeCoverage(profilerId, intervals);
                }
            } else {
                counts.coverageUnknown();
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
