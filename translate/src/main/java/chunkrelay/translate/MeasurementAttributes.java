package chunkrelay.translate;

import chunkrelay.chunk.Measurement;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.ArrayValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.common.v1.KeyValueList;
import io.opentelemetry.proto.profiles.v1development.Profile;

import java.util.Map;
import java.util.TreeMap;

import static chunkrelay.translate.OtlpAttributes.SENTRY_MEASUREMENT_PREFIX;

/**
 * A chunk's measurements as profile attributes {@code sentry.measurement.<name>}: a kvlist of the timestamps and
 * values as sent, the unit in UCUM.
 */
final class MeasurementAttributes {
    private MeasurementAttributes() {
    }

    /** Measurements in name order, so that the output does not depend on map iteration order. */
    static void addTo(Profile.Builder profile, Map<String, Measurement> measurements,
                      ProfilesDictionaryBuilder dictionary) {
        for (Map.Entry<String, Measurement> entry : new TreeMap<>(measurements).entrySet()) {
            Measurement measurement = entry.getValue();
            ArrayValue.Builder timestamps = ArrayValue.newBuilder();
            ArrayValue.Builder values = ArrayValue.newBuilder();
            for (int i = 0; i < measurement.size(); i++) {
                timestamps.addValues(AnyValue.newBuilder().setDoubleValue(measurement.timestamp(i)));
                values.addValues(AnyValue.newBuilder().setDoubleValue(measurement.value(i)));
            }
            AnyValue series = AnyValue.newBuilder().setKvlistValue(KeyValueList.newBuilder()
                    .addValues(KeyValue.newBuilder().setKey("timestamps")
                            .setValue(AnyValue.newBuilder().setArrayValue(timestamps)))
                    .addValues(KeyValue.newBuilder().setKey("values")
                            .setValue(AnyValue.newBuilder().setArrayValue(values))))
                    .build();
            profile.addAttributeIndices(dictionary.attribute(SENTRY_MEASUREMENT_PREFIX + entry.getKey(),
                    series, Platforms.ucumUnit(measurement.unit())));
        }
    }
}
