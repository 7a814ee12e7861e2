package chunkrelay.translate;

import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.profiles.v1development.KeyValueAndUnit;
import io.opentelemetry.proto.profiles.v1development.ProfilesDictionary;
import io.opentelemetry.proto.profiles.v1development.Sample;

/** What tests read off an OTLP sample through its request's dictionary. */
public final class OtlpSamples {
    private OtlpSamples() {
    }

    /** The sample's {@code thread.id} attribute as text (an int value in decimal), or null without one. */
    public static String threadId(ProfilesDictionary dictionary, Sample sample) {
        for (int index : sample.getAttributeIndicesList()) {
            KeyValueAndUnit attribute = dictionary.getAttributeTable(index);
            if (dictionary.getStringTable(attribute.getKeyStrindex()).equals("thread.id")) {
                AnyValue value = attribute.getValue();
                return value.hasIntValue() ? Long.toString(value.getIntValue()) : value.getStringValue();
            }
        }
        return null;
    }
}
