package chunkrelay.translate.view;

import chunkrelay.translate.ProfileTypes;
import com.google.protobuf.CodedOutputStream;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Rollups of format 1 (written before samples had a type) are still read, as what the OTLP they were merged from
 * said; format 2 keeps each sample's type.
 */
class RollupFormatsTest {
    private static final long SECOND = 1_000_000_000L;
    private static final long START = 1_763_800_020L * SECOND;

    /**
     * A minute's rollup in format 1, written field by field as that format laid it out: one thread, a sample group of
     * 3 idle samples (the {@code (no stack)} frame) and one of 2 in {@code work}.
     */
    private static byte[] format1() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        CodedOutputStream out = CodedOutputStream.newInstance(bytes);
        out.writeUInt32NoTag(1);
        out.writeInt64NoTag(START);
        out.writeInt64NoTag(START + 60 * SECOND);
        out.writeUInt32NoTag(60);
        out.writeInt64NoTag(10_000_000L);
        out.writeInt64NoTag(START);
        out.writeInt64NoTag(START + 5 * SECOND);
        out.writeInt32NoTag(0); // the (no stack) frame's location
        out.writeUInt32NoTag(2);
        text(out, "(no stack)");
        text(out, null);
        text(out, null);
        text(out, "work");
        text(out, null);
        text(out, "app.js");
        out.writeUInt32NoTag(2);
        for (int function = 0; function < 2; function++) {
            out.writeUInt64NoTag(0);
            out.writeUInt32NoTag(1);
            out.writeUInt32NoTag(function);
            out.writeInt64NoTag(0);
        }
        out.writeUInt32NoTag(2);
        for (int location = 0; location < 2; location++) {
            out.writeUInt32NoTag(1);
            out.writeUInt32NoTag(location);
        }
        out.writeUInt32NoTag(1);
        text(out, "4d229f1d3807421ba62a5f8bc295d836");
        text(out, "0");
        text(out, "main");
        out.writeBoolNoTag(false);
        out.writeUInt32NoTag(0);
        out.writeUInt32NoTag(2);
        long[][] groups = {{0, 3}, {1, 2}};
        for (long[] group : groups) {
            out.writeUInt32NoTag((int) group[0]);
            out.writeUInt32NoTag(0);
            out.writeUInt32NoTag(0);
            out.writeInt64NoTag(10_000_000L);
            out.writeInt64NoTag(group[1]);
            out.writeInt64NoTag(START);
            out.writeInt64NoTag(4 * SECOND);
        }
        out.writeUInt32NoTag(1);
        out.writeUInt32NoTag(0);
        out.writeInt64NoTag(5);
        out.writeUInt32NoTag(0);
        out.writeUInt32NoTag(0);
        out.writeUInt32NoTag(0);
        out.flush();
        return bytes.toByteArray();
    }

    private static void text(CodedOutputStream out, String text) throws IOException {
        out.writeBoolNoTag(text != null);
        if (text != null) {
            out.writeStringNoTag(text);
        }
    }

    @Test
    void readsFormat1AsTheCpuTypeItsOtlpSaidWithItsEmptyStackFrameNamedSo() throws IOException {
        Rollup rollup = RollupCodec.read(format1());

        MergedProfile profile = rollup.profile();
        assertEquals(List.of(ProfileTypes.CPU, ProfileTypes.CPU),
                profile.samples().stream().map(MergedProfile.SampleGroup::periodType).toList());
        assertEquals(List.of(ProfileTypes.NO_STACK_FRAME, "work"),
                profile.functions().stream().map(MergedProfile.Function::name).toList());
        assertEquals(5, profile.sampleCount());
        assertEquals(5, profile.stepCounts(0)[0]);
    }

    @Test
    void keepsEachSamplesTypeInFormat2() throws IOException {
        Rollup read = RollupCodec.read(format1());
        MergedProfile wallAndCpu = read.profile();
        MergedProfile.SampleGroup first = wallAndCpu.samples.get(0);
        wallAndCpu.samples.set(0, new MergedProfile.SampleGroup(first.stack(), first.thread(), first.link(),
                ProfileTypes.WALL, first.periodNanos(), first.count(), first.firstNanos(), first.lastNanos()));

        byte[] written = RollupCodec.write(read);
        Rollup again = RollupCodec.read(written);

        assertEquals(List.of(ProfileTypes.WALL, ProfileTypes.CPU),
                again.profile().samples().stream().map(MergedProfile.SampleGroup::periodType).toList());
        assertArrayEquals(written, RollupCodec.write(again), "the same rollup, the same bytes");
    }

    @Test
    void refusesAFormatItDoesNotKnow() throws IOException {
        byte[] bytes = format1();
        bytes[0] = 5;
        assertThrows(IllegalArgumentException.class, () -> RollupCodec.read(bytes));
    }
}
