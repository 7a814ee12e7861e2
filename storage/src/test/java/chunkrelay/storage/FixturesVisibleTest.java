package chunkrelay.storage;

import chunkrelay.chunk.fixtures.Fixtures;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class FixturesVisibleTest {
    @Test
    void recordedSdkRequestsAndTheirChunksAreOnTheTestClasspath() {
        assertEquals(15, Fixtures.sdkRequests().size());
        assertEquals(7, Fixtures.sdkChunks().size());
    }
}
