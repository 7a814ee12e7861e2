package chunkrelay.storage;

import chunkrelay.chunk.fixtures.Fixtures;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class FixturesVisibleTest {
    @Test
    void recordedSdkRequestsAndTheirChunksAreOnTheTestClasspath() {
        assertEquals(11, Fixtures.sdkRequests().size());
        assertEquals(6, Fixtures.sdkChunks().size());
    }
}
