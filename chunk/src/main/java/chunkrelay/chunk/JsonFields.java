package chunkrelay.chunk;

import java.util.ArrayList;
import java.util.List;

/** The known keys seen in one JSON object, for serde's duplicate-field and missing-field errors. */
final class JsonFields {
    private final String path;
    private final List<String> seen = new ArrayList<>(8);

    JsonFields(String path) {
        this.path = path;
    }

    void mark(String field) throws ChunkSchemaException {
        if (seen.contains(field)) {
            throw new ChunkSchemaException(path + field + ": duplicate field");
        }
        seen.add(field);
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
