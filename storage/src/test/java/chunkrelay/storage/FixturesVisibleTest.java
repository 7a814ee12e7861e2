package chunkrelay.storage;

import chunkrelay.chunk.fixtures.Fixtures;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class FixturesVisibleTest {
    @Test
    void recordedSdkRequestsAreOnTheTestClasspath() {
        assertEquals(11, Fixtures.sdkRequests().size());
    }
}
