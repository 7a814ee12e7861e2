package chunkrelay.chunk;

/**
 * The payload does not match the schema Relay's serde types accept; becomes {@code profiling_invalid_json}.
 * Stackless: it is an expected outcome on hostile input, not a bug.
 */
final class ChunkSchemaException extends Exception {

    ChunkSchemaException(String detail) {
        super(detail, null, false, false);
    }
}
