package chunkrelay.chunk;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.io.SerializedString;

import java.io.IOException;

/**
 * The field names of objects that repeat with one layout, such as a chunk's samples, read by comparing the input's
 * bytes with the name expected at each position ({@link JsonParser#nextFieldName(com.fasterxml.jackson.core.SerializableString)}),
 * which skips the parser's hashing and symbol-table lookup of the name. The expected layout is learned from the
 * objects read: a known name found at another position is expected there next time. Any order and any other
 * field still read correctly, only without the shortcut.
 */
final class PredictedFieldNames {
    private final SerializedString[] known;
    private final SerializedString[] expected;

    /** @param names the names worth predicting, in the order expected first */
    PredictedFieldNames(String... names) {
        known = new SerializedString[names.length];
        for (int i = 0; i < names.length; i++) {
            known[i] = new SerializedString(names[i]);
        }
        expected = known.clone();
    }

    /**
     * Advances {@code p} to the object's next field name and returns it, or returns null at the end of the object.
     *
     * @param position how many fields of this object were read before
     */
    String next(JsonParser p, int position) throws IOException {
        SerializedString guess = position < expected.length ? expected[position] : null;
        if (guess != null && p.nextFieldName(guess)) {
            return guess.getValue();
        }
        if ((guess == null ? p.nextToken() : p.currentToken()) != JsonToken.FIELD_NAME) {
            return null;
        }
        String name = p.currentName();
        if (position < expected.length) {
            for (SerializedString candidate : known) {
                if (candidate.getValue().equals(name)) {
                    expected[position] = candidate;
                    break;
                }
            }
        }
        return name;
    }
}
