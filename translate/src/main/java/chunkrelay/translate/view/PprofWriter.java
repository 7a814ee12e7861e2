package chunkrelay.translate.view;

import chunkrelay.chunk.primitive.IndexedSet;
import chunkrelay.translate.ProfileTypes;
import com.google.perftools.profiles.ProfileProto;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.WireFormat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.GZIPOutputStream;

/**
 * Writes a {@link MergedProfile} as a gzipped pprof {@code profile.proto}, the way {@code go tool pprof}, Pyroscope
 * and IDEs read it: sample types {@code samples/count} and, per sample type of the merged chunks (the OTLP period type,
 * {@code wall} or {@code cpu}), {@code <type>/nanoseconds}: count × the chunk's period in its own type's column and 0
 * in the other's, so wall-clock and CPU time never add up; the period type and the default sample type are the one
 * type, or {@code samples} when a range holds both (an empty answer says {@code wall}); one location per merged
 * location with its lines, functions with names and files, one mapping for everything (the frames are symbolic
 * already), string labels {@code thread.id}, {@code thread.name} and, for linked samples, {@code trace_id} and
 * {@code span_id}. Every id is its table index plus one; string 0 is "".
 *
 * <p>The fields are written straight to the stream in field order, as protobuf's generated code would write them:
 * an answer of a fleet's hour holds hundreds of thousands of samples, and a builder per sample made writing cost a
 * third of the answer. The string table follows the samples in field order, so the strings are numbered first, each
 * thread's and link's labels once, in the order the samples first name them.
 */
public final class PprofWriter {
    private static final int PROFILE_SAMPLE_TYPE = 1;
    private static final int PROFILE_SAMPLE = 2;
    private static final int PROFILE_MAPPING = 3;
    private static final int PROFILE_LOCATION = 4;
    private static final int PROFILE_FUNCTION = 5;
    private static final int PROFILE_STRING_TABLE = 6;
    private static final int PROFILE_TIME_NANOS = 9;
    private static final int PROFILE_DURATION_NANOS = 10;
    private static final int PROFILE_PERIOD_TYPE = 11;
    private static final int PROFILE_PERIOD = 12;
    private static final int PROFILE_COMMENT = 13;
    private static final int PROFILE_DEFAULT_SAMPLE_TYPE = 14;
    private static final int SAMPLE_LOCATION_ID = 1;
    private static final int SAMPLE_VALUE = 2;
    private static final int SAMPLE_LABEL = 3;
    private static final int LABEL_KEY = 1;
    private static final int LABEL_STR = 2;
    private static final int VALUE_TYPE_TYPE = 1;
    private static final int VALUE_TYPE_UNIT = 2;
    private static final int MAPPING_ID = 1;
    private static final int MAPPING_FILENAME = 5;
    private static final int MAPPING_HAS_FUNCTIONS = 7;
    private static final int MAPPING_HAS_FILENAMES = 8;
    private static final int MAPPING_HAS_LINE_NUMBERS = 9;
    private static final int MAPPING_HAS_INLINE_FRAMES = 10;
    private static final int LOCATION_ID = 1;
    private static final int LOCATION_MAPPING_ID = 2;
    private static final int LOCATION_ADDRESS = 3;
    private static final int LOCATION_LINE = 4;
    private static final int LINE_FUNCTION_ID = 1;
    private static final int LINE_LINE = 2;
    private static final int FUNCTION_ID = 1;
    private static final int FUNCTION_NAME = 2;
    private static final int FUNCTION_SYSTEM_NAME = 3;
    private static final int FUNCTION_FILENAME = 4;
    private static final int BUFFER = 64 * 1024;

    private PprofWriter() {
    }

    public static void write(MergedProfile profile, OutputStream out) throws IOException {
        GZIPOutputStream gzip = new GZIPOutputStream(out, BUFFER);
        CodedOutputStream coded = CodedOutputStream.newInstance(gzip, BUFFER);
        new Encoding(profile).writeTo(coded);
        coded.flush();
        gzip.finish();
    }

    /** The profile before gzip, as a message. */
    public static ProfileProto.Profile toProto(MergedProfile profile) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        CodedOutputStream coded = CodedOutputStream.newInstance(bytes, BUFFER);
        try {
            new Encoding(profile).writeTo(coded);
            coded.flush();
            return ProfileProto.Profile.parseFrom(bytes.toByteArray());
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalStateException("the pprof written does not parse", e);
        } catch (IOException e) {
            throw new IllegalStateException("writing to memory failed", e);
        }
    }

    /** One profile's strings numbered and its fields written. */
    private static final class Encoding {
        private final MergedProfile profile;
        private final List<MergedProfile.SampleGroup> samples;
        private final List<int[]> stacks;
        private final Strings strings = new Strings();
        private final List<String> types;
        private final long samplesName;
        private final long countUnit;
        private final long nanoseconds;
        private final long[] typeNames;
        private final long periodTypeName;
        private final long defaultSampleType;
        private final long comment;
        private final long mappingFile;
        private final long[] functionNames;
        private final long[] functionSystemNames;
        private final long[] functionFiles;
        private final long threadIdKey;
        private final long threadNameKey;
        private final long traceIdKey;
        private final long spanIdKey;
        /** Per thread and link, its label values' strings; 0 for a label left out, -1 before the first sample. */
        private final long[] threadIds;
        private final long[] threadNames;
        private final long[] traceIds;
        private final long[] spanIds;

        Encoding(MergedProfile profile) {
            this.profile = profile;
            this.samples = profile.samples();
            this.stacks = profile.stacks();
            this.types = profile.sampleTypes().isEmpty() ? List.of(ProfileTypes.WALL)
                    : new ArrayList<>(profile.sampleTypes());
            samplesName = strings.index(ProfileTypes.SAMPLES);
            countUnit = strings.index(ProfileTypes.COUNT);
            typeNames = new long[types.size()];
            long nanos = 0;
            for (int t = 0; t < types.size(); t++) {
                typeNames[t] = strings.index(types.get(t));
                nanos = strings.index(ProfileTypes.NANOSECONDS);
            }
            nanoseconds = nanos;
            periodTypeName = strings.index(types.get(0));
            defaultSampleType = strings.index(types.size() == 1 ? types.get(0) : ProfileTypes.SAMPLES);
            comment = strings.index("chunk-relay: " + profile.chunks() + " chunk(s) merged");
            mappingFile = strings.index("chunk-relay");
            List<MergedProfile.Function> functions = profile.functions();
            functionNames = new long[functions.size()];
            functionSystemNames = new long[functions.size()];
            functionFiles = new long[functions.size()];
            for (int f = 0; f < functions.size(); f++) {
                MergedProfile.Function function = functions.get(f);
                functionNames[f] = strings.index(function.name());
                functionSystemNames[f] = strings.index(function.systemName() != null ? function.systemName()
                        : function.name());
                functionFiles[f] = strings.index(function.file());
            }
            threadIds = unnamed(profile.threads().size());
            threadNames = unnamed(profile.threads().size());
            traceIds = unnamed(profile.links().size());
            spanIds = unnamed(profile.links().size());
            long[] keys = new long[4];
            for (MergedProfile.SampleGroup group : samples) {
                nameLabels(group, keys);
            }
            threadIdKey = keys[0];
            threadNameKey = keys[1];
            traceIdKey = keys[2];
            spanIdKey = keys[3];
        }

        private static long[] unnamed(int size) {
            long[] names = new long[size];
            Arrays.fill(names, -1);
            return names;
        }

        /** Numbers the label strings of a group's thread and link the first time a sample names them. */
        private void nameLabels(MergedProfile.SampleGroup group, long[] keys) {
            int thread = group.thread();
            if (threadIds[thread] < 0) {
                MergedProfile.Thread named = profile.threads().get(thread);
                threadIds[thread] = label(named.threadId(), "thread.id", keys, 0);
                threadNames[thread] = label(named.name(), "thread.name", keys, 1);
            }
            int link = group.link();
            if (link >= 0 && traceIds[link] < 0) {
                MergedProfile.Link named = profile.links().get(link);
                traceIds[link] = label(named.traceId(), "trace_id", keys, 2);
                spanIds[link] = label(named.spanId(), "span_id", keys, 3);
            }
        }

        /** A label's value string, its key's numbered first as the label is; 0 for a label left out (no value). */
        private long label(String value, String key, long[] keys, int keyAt) {
            if (value == null || value.isEmpty()) {
                return 0;
            }
            if (keys[keyAt] == 0) {
                keys[keyAt] = strings.index(key);
            }
            return strings.index(value);
        }

        void writeTo(CodedOutputStream out) throws IOException {
            writeValueType(out, PROFILE_SAMPLE_TYPE, samplesName, countUnit);
            for (long typeName : typeNames) {
                writeValueType(out, PROFILE_SAMPLE_TYPE, typeName, nanoseconds);
            }
            long[] values = new long[1 + types.size()];
            for (MergedProfile.SampleGroup group : samples) {
                writeSample(out, group, values);
            }
            writeMapping(out);
            writeLocations(out);
            writeFunctions(out);
            for (String string : strings.table.values()) {
                out.writeString(PROFILE_STRING_TABLE, string);
            }
            if (profile.sampleCount() > 0) {
                writeNonZero(out, PROFILE_TIME_NANOS, profile.startNanos());
                writeNonZero(out, PROFILE_DURATION_NANOS, profile.endNanos() - profile.startNanos());
            }
            writeValueType(out, PROFILE_PERIOD_TYPE, periodTypeName, nanoseconds);
            writeNonZero(out, PROFILE_PERIOD, profile.periodNanos());
            out.writeTag(PROFILE_COMMENT, WireFormat.WIRETYPE_LENGTH_DELIMITED);
            out.writeUInt32NoTag(CodedOutputStream.computeInt64SizeNoTag(comment));
            out.writeInt64NoTag(comment);
            writeNonZero(out, PROFILE_DEFAULT_SAMPLE_TYPE, defaultSampleType);
        }

        private void writeSample(CodedOutputStream out, MergedProfile.SampleGroup group, long[] values)
                throws IOException {
            int[] stack = stacks.get(group.stack());
            long count = group.count();
            values[0] = count;
            for (int t = 0; t < types.size(); t++) {
                values[t + 1] = types.get(t).equals(group.periodType()) ? count * group.periodNanos() : 0;
            }
            int locationsSize = 0;
            for (int location : stack) {
                locationsSize += CodedOutputStream.computeUInt64SizeNoTag(location + 1L);
            }
            int valuesSize = 0;
            for (long value : values) {
                valuesSize += CodedOutputStream.computeInt64SizeNoTag(value);
            }
            int thread = group.thread();
            int link = group.link();
            int size = packedSize(SAMPLE_LOCATION_ID, locationsSize) + packedSize(SAMPLE_VALUE, valuesSize)
                    + labelSize(threadIdKey, threadIds[thread]) + labelSize(threadNameKey, threadNames[thread]);
            if (link >= 0) {
                size += labelSize(traceIdKey, traceIds[link]) + labelSize(spanIdKey, spanIds[link]);
            }
            out.writeTag(PROFILE_SAMPLE, WireFormat.WIRETYPE_LENGTH_DELIMITED);
            out.writeUInt32NoTag(size);
            if (locationsSize > 0) {
                out.writeTag(SAMPLE_LOCATION_ID, WireFormat.WIRETYPE_LENGTH_DELIMITED);
                out.writeUInt32NoTag(locationsSize);
                for (int location : stack) {
                    out.writeUInt64NoTag(location + 1L);
                }
            }
            out.writeTag(SAMPLE_VALUE, WireFormat.WIRETYPE_LENGTH_DELIMITED);
            out.writeUInt32NoTag(valuesSize);
            for (long value : values) {
                out.writeInt64NoTag(value);
            }
            writeLabel(out, threadIdKey, threadIds[thread]);
            writeLabel(out, threadNameKey, threadNames[thread]);
            if (link >= 0) {
                writeLabel(out, traceIdKey, traceIds[link]);
                writeLabel(out, spanIdKey, spanIds[link]);
            }
        }

        private void writeMapping(CodedOutputStream out) throws IOException {
            // one mapping that says the frames are symbolised, so pprof does not look for binaries
            int size = CodedOutputStream.computeUInt64Size(MAPPING_ID, 1)
                    + CodedOutputStream.computeInt64Size(MAPPING_FILENAME, mappingFile)
                    + 4 * CodedOutputStream.computeBoolSize(MAPPING_HAS_FUNCTIONS, true);
            out.writeTag(PROFILE_MAPPING, WireFormat.WIRETYPE_LENGTH_DELIMITED);
            out.writeUInt32NoTag(size);
            out.writeUInt64(MAPPING_ID, 1);
            out.writeInt64(MAPPING_FILENAME, mappingFile);
            out.writeBool(MAPPING_HAS_FUNCTIONS, true);
            out.writeBool(MAPPING_HAS_FILENAMES, true);
            out.writeBool(MAPPING_HAS_LINE_NUMBERS, true);
            out.writeBool(MAPPING_HAS_INLINE_FRAMES, true);
        }

        private void writeLocations(CodedOutputStream out) throws IOException {
            List<MergedProfile.Location> locations = profile.locations();
            for (int l = 0; l < locations.size(); l++) {
                MergedProfile.Location location = locations.get(l);
                int size = CodedOutputStream.computeUInt64Size(LOCATION_ID, l + 1L)
                        + CodedOutputStream.computeUInt64Size(LOCATION_MAPPING_ID, 1)
                        + uInt64SizeNonZero(LOCATION_ADDRESS, location.address());
                for (MergedProfile.Line line : location.lines()) {
                    int lineSize = lineSize(line);
                    size += CodedOutputStream.computeTagSize(LOCATION_LINE)
                            + CodedOutputStream.computeUInt32SizeNoTag(lineSize) + lineSize;
                }
                out.writeTag(PROFILE_LOCATION, WireFormat.WIRETYPE_LENGTH_DELIMITED);
                out.writeUInt32NoTag(size);
                out.writeUInt64(LOCATION_ID, l + 1L);
                out.writeUInt64(LOCATION_MAPPING_ID, 1);
                if (location.address() != 0) {
                    out.writeUInt64(LOCATION_ADDRESS, location.address());
                }
                for (MergedProfile.Line line : location.lines()) {
                    out.writeTag(LOCATION_LINE, WireFormat.WIRETYPE_LENGTH_DELIMITED);
                    out.writeUInt32NoTag(lineSize(line));
                    out.writeUInt64(LINE_FUNCTION_ID, line.function() + 1L);
                    writeNonZero(out, LINE_LINE, line.line());
                }
            }
        }

        private static int lineSize(MergedProfile.Line line) {
            return CodedOutputStream.computeUInt64Size(LINE_FUNCTION_ID, line.function() + 1L)
                    + int64SizeNonZero(LINE_LINE, line.line());
        }

        private void writeFunctions(CodedOutputStream out) throws IOException {
            for (int f = 0; f < functionNames.length; f++) {
                int size = CodedOutputStream.computeUInt64Size(FUNCTION_ID, f + 1L)
                        + int64SizeNonZero(FUNCTION_NAME, functionNames[f])
                        + int64SizeNonZero(FUNCTION_SYSTEM_NAME, functionSystemNames[f])
                        + int64SizeNonZero(FUNCTION_FILENAME, functionFiles[f]);
                out.writeTag(PROFILE_FUNCTION, WireFormat.WIRETYPE_LENGTH_DELIMITED);
                out.writeUInt32NoTag(size);
                out.writeUInt64(FUNCTION_ID, f + 1L);
                writeNonZero(out, FUNCTION_NAME, functionNames[f]);
                writeNonZero(out, FUNCTION_SYSTEM_NAME, functionSystemNames[f]);
                writeNonZero(out, FUNCTION_FILENAME, functionFiles[f]);
            }
        }

        private static void writeValueType(CodedOutputStream out, int field, long type, long unit)
                throws IOException {
            out.writeTag(field, WireFormat.WIRETYPE_LENGTH_DELIMITED);
            out.writeUInt32NoTag(int64SizeNonZero(VALUE_TYPE_TYPE, type) + int64SizeNonZero(VALUE_TYPE_UNIT, unit));
            writeNonZero(out, VALUE_TYPE_TYPE, type);
            writeNonZero(out, VALUE_TYPE_UNIT, unit);
        }

        private static int labelSize(long key, long value) {
            if (value == 0) {
                return 0;
            }
            int size = int64SizeNonZero(LABEL_KEY, key) + int64SizeNonZero(LABEL_STR, value);
            return CodedOutputStream.computeTagSize(SAMPLE_LABEL) + CodedOutputStream.computeUInt32SizeNoTag(size)
                    + size;
        }

        private static void writeLabel(CodedOutputStream out, long key, long value) throws IOException {
            if (value == 0) {
                return;
            }
            out.writeTag(SAMPLE_LABEL, WireFormat.WIRETYPE_LENGTH_DELIMITED);
            out.writeUInt32NoTag(int64SizeNonZero(LABEL_KEY, key) + int64SizeNonZero(LABEL_STR, value));
            writeNonZero(out, LABEL_KEY, key);
            writeNonZero(out, LABEL_STR, value);
        }

        private static int packedSize(int field, int contentSize) {
            return contentSize == 0 ? 0 : CodedOutputStream.computeTagSize(field)
                    + CodedOutputStream.computeUInt32SizeNoTag(contentSize) + contentSize;
        }

        /** A proto3 scalar's size: nothing when it is 0, which is not written. */
        private static int int64SizeNonZero(int field, long value) {
            return value == 0 ? 0 : CodedOutputStream.computeInt64Size(field, value);
        }

        private static int uInt64SizeNonZero(int field, long value) {
            return value == 0 ? 0 : CodedOutputStream.computeUInt64Size(field, value);
        }

        private static void writeNonZero(CodedOutputStream out, int field, long value) throws IOException {
            if (value != 0) {
                out.writeInt64(field, value);
            }
        }
    }

    /** The string table, "" first, each string once. */
    private static final class Strings {
        private final IndexedSet<String> table = IndexedSet.startingWith("");

        long index(String value) {
            return value == null ? 0 : table.indexOf(value);
        }
    }
}
