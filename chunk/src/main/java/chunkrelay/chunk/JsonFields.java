package chunkrelay.chunk;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The fields of one JSON object, read as serde reads a struct: {@link #next()} moves the parser to each field's value
 * in turn; the reader marks a field it knows with {@link #known} (a second one is serde's duplicate-field error) and
 * skips the others; {@link #require} gives the missing-field error.
 */
final class JsonFields {
    private final JsonParser p;
    private final String path;
    private final List<String> seen = new ArrayList<>(8);
    private String name;

    /** @param path what error details put before a field's name: the object's path and a dot, or "" at the root */
    JsonFields(JsonParser p, String path) {
        this.p = p;
        this.path = path;
    }

    /** The fields of the object the parser is at, {@code path} naming it in error details. */
    static JsonFields of(JsonParser p, String path) throws ChunkSchemaException {
        JsonValues.expectObject(p, path);
        return new JsonFields(p, path + ".");
    }

    /** Moves to the value of the next field; false at the end of the object. */
    boolean next() throws IOException {
        if (p.nextToken() != JsonToken.FIELD_NAME) {
            return false;
        }
        name = p.currentName();
        p.nextToken();
        return true;
    }

    /** The name of the field whose value the parser is at, as written. */
    String name() {
        return name;
    }

    /**
     * Marks the current field as the known field {@code field} (its name or an alias of it was read), and returns
     * the current field's path for error details.
     */
    String known(String field) throws ChunkSchemaException {
        if (seen.contains(field)) {
            throw new ChunkSchemaException(path + field + ": duplicate field");
        }
        seen.add(field);
        return path + name;
    }

    /** The first of {@code fields} not seen, as an error detail, or null when all were. */
    String firstMissing(String... fields) {
        for (String field : fields) {
            if (!seen.contains(field)) {
                return path + field + ": missing field";
            }
        }
        return null;
    }

    void require(String... fields) throws ChunkSchemaException {
        for (String field : fields) {
            if (!seen.contains(field)) {
                throw new ChunkSchemaException(path + field + ": missing field");
            }
        }
    }
}
