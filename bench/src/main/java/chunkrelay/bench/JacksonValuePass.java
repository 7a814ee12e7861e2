package chunkrelay.bench;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The floor of reading a chunk: a pass of Jackson's streaming parser over its JSON that reads every token and decodes
 * every value as any reader of the chunk must (numbers as numbers, strings and field names as strings), keeping
 * nothing. {@link JacksonTokenPass} only tokenises, which no reader of a chunk can stop at.
 */
final class JacksonValuePass {
    private JacksonValuePass() {
    }

    /** A sum over the decoded values, so that none of the decoding can be skipped. */
    static long values(byte[] json) {
        long sum = 0;
        try (JsonParser parser = JacksonTokenPass.JSON.createParser(json)) {
            JsonToken token;
            while ((token = parser.nextToken()) != null) {
                sum += switch (token) {
                    case FIELD_NAME -> parser.currentName().length();
                    case VALUE_STRING -> parser.getText().length();
                    case VALUE_NUMBER_INT -> switch (parser.getNumberType()) {
                        case INT -> parser.getIntValue();
                        case LONG -> parser.getLongValue();
                        default -> parser.getBigIntegerValue().signum();
                    };
                    case VALUE_NUMBER_FLOAT -> (long) parser.getDoubleValue();
                    default -> 1;
                };
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return sum;
    }
}
