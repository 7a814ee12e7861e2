package chunkrelay.bench;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.StreamReadConstraints;

import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The floor the chunk figures are measured against: a bare pass of Jackson's streaming parser over a chunk's JSON,
 * every token read, nothing kept, with the relay parser's string limits so that it reads every chunk the relay reads.
 */
final class JacksonTokenPass {
    static final JsonFactory JSON = JsonFactory.builder().streamReadConstraints(StreamReadConstraints.builder()
            .maxStringLength(Integer.MAX_VALUE).build()).build();

    private JacksonTokenPass() {
    }

    /** How many tokens {@code json} holds. */
    static long tokens(byte[] json) {
        long tokens = 0;
        try (JsonParser parser = JSON.createParser(json)) {
            while (parser.nextToken() != null) {
                tokens++;
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return tokens;
    }
}
