package chunkrelay.chunk;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Reads the chunk-level objects every chunk format carries in its JSON (V2, Android ART and Perfetto metadata):
 * {@code client_sdk}, {@code debug_meta} and {@code measurements}, with the checks of Relay's serde structs.
 */
final class ChunkMetadataReader {
    private ChunkMetadataReader() {
    }

    static ClientSdk clientSdk(JsonParser p) throws IOException, ChunkSchemaException {
        JsonFields fields = JsonFields.of(p, "client_sdk");
        String name = null;
        String version = null;
        while (fields.next()) {
            switch (fields.name()) {
                case "name" -> name = JsonValues.string(p, fields.known("name"));
                case "version" -> version = JsonValues.string(p, fields.known("version"));
                default -> p.skipChildren();
            }
        }
        fields.require("name", "version");
        return new ClientSdk(name, version);
    }

    static List<DebugImage> debugImages(JsonParser p) throws IOException, ChunkSchemaException {
        JsonFields fields = JsonFields.of(p, "debug_meta");
        List<DebugImage> images = new ArrayList<>();
        while (fields.next()) {
            if (fields.name().equals("images")) {
                JsonValues.expectArray(p, fields.known("images"));
                while (p.nextToken() != JsonToken.END_ARRAY) {
                    images.add(debugImage(p, "debug_meta.images[" + images.size() + "]"));
                }
            } else {
                p.skipChildren();
            }
        }
        fields.require("images");
        return images;
    }

    private static DebugImage debugImage(JsonParser p, String path) throws IOException, ChunkSchemaException {
        JsonFields fields = JsonFields.of(p, path);
        String type = null;
        String codeFile = null;
        String debugId = null;
        Long imageAddr = null;
        Long imageVmaddr = null;
        long imageSize = 0;
        String uuid = null;
        while (fields.next()) {
            switch (fields.name()) {
                case "type" -> {
                    String fieldPath = fields.known("type");
                    type = JsonValues.string(p, fieldPath);
                    if (!DebugImageTypes.contains(type)) {
                        throw new ChunkSchemaException(fieldPath + ": unknown variant \""
                                + JsonValues.abbreviate(type) + "\", expected one of " + DebugImageTypes.NAMES);
                    }
                }
                case "code_file", "name" -> codeFile = JsonValues.optionalString(p, fields.known("code_file"));
                case "debug_id", "id" -> {
                    String fieldPath = fields.known("debug_id");
                    debugId = JsonValues.optionalString(p, fieldPath);
                    if (debugId != null && !DebugImageTypes.isDebugId(debugId)) {
                        throw new ChunkSchemaException(fieldPath + ": \"" + JsonValues.abbreviate(debugId)
                                + "\" is not a debug id");
                    }
                }
                case "image_addr" -> imageAddr = JsonValues.optionalAddress(p, fields.known("image_addr"));
                case "image_vmaddr" -> imageVmaddr = JsonValues.optionalAddress(p, fields.known("image_vmaddr"));
                case "image_size" -> imageSize = numberOrNumericString(p, fields.known("image_size"));
                case "uuid", "build_id" -> {
                    String fieldPath = fields.known("uuid");
                    uuid = JsonValues.optionalString(p, fieldPath);
                    if (uuid != null && SentryUuid.parseOrNull(uuid) == null) {
                        throw new ChunkSchemaException(fieldPath + ": \"" + JsonValues.abbreviate(uuid)
                                + "\" is not a UUID");
                    }
                }
                default -> p.skipChildren();
            }
        }
        fields.require("type");
        return new DebugImage(type, imageAddr, imageSize == 0 ? null : imageSize, imageVmaddr, codeFile,
                debugId, null, uuid, null);
    }

    /** Relay's {@code deserialize_number_from_string} into u64: a JSON u64 or a string holding one. */
    private static long numberOrNumericString(JsonParser p, String path) throws IOException, ChunkSchemaException {
        if (p.currentToken() == JsonToken.VALUE_STRING) {
            Long value = JsonValues.parseUnsignedAscii(p.getText(), 10);
            if (value == null) {
                throw new ChunkSchemaException(path + ": \"" + JsonValues.abbreviate(p.getText())
                        + "\" is not an unsigned 64-bit integer");
            }
            return value;
        }
        return JsonValues.u64(p, path);
    }

    static Map<String, Measurement> measurements(JsonParser p) throws IOException, ChunkSchemaException {
        JsonValues.expectObject(p, "measurements");
        Map<String, Measurement> result = new TreeMap<>();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String key = JsonValues.unicode(p.currentName(), "measurements");
            p.nextToken();
            result.put(key, measurement(p, "measurements." + JsonValues.abbreviate(key)));
        }
        return result;
    }

    private static Measurement measurement(JsonParser p, String path) throws IOException, ChunkSchemaException {
        JsonFields fields = JsonFields.of(p, path);
        String unit = null;
        List<double[]> values = new ArrayList<>();
        while (fields.next()) {
            switch (fields.name()) {
                case "unit" -> {
                    unit = MeasurementUnits.canonical(JsonValues.string(p, fields.known("unit")));
                    if (unit == null) {
                        throw new ChunkSchemaException(path + ".unit: unknown variant \""
                                + JsonValues.abbreviate(p.getText()) + "\", expected one of " + MeasurementUnits.NAMES);
                    }
                }
                case "values" -> {
                    String valuesPath = fields.known("values");
                    values.clear();
                    JsonValues.expectArray(p, valuesPath);
                    while (p.nextToken() != JsonToken.END_ARRAY) {
                        values.add(measurementValue(p, path + ".values[" + values.size() + "]"));
                    }
                }
                default -> p.skipChildren();
            }
        }
        fields.require("unit", "values");
        double[] timestampsOut = new double[values.size()];
        double[] valuesOut = new double[values.size()];
        for (int i = 0; i < values.size(); i++) {
            timestampsOut[i] = values.get(i)[0];
            valuesOut[i] = values.get(i)[1];
        }
        return new Measurement(unit, timestampsOut, valuesOut);
    }

    private static double[] measurementValue(JsonParser p, String path) throws IOException, ChunkSchemaException {
        JsonFields fields = JsonFields.of(p, path);
        double timestamp = 0;
        double value = 0;
        while (fields.next()) {
            switch (fields.name()) {
                case "timestamp" -> timestamp = JsonValues.finiteDouble(p, fields.known("timestamp"));
                case "value" -> value = JsonValues.finiteDouble(p, fields.known("value"));
                default -> p.skipChildren();
            }
        }
        fields.require("timestamp", "value");
        return new double[] {timestamp, value};
    }
}
