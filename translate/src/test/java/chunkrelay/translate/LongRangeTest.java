package chunkrelay.translate;

import io.opentelemetry.proto.profiles.v1development.Sample;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class LongRangeTest {
    private final long[] values = {10, 20, 30, 40, 50};

    @Test
    void viewsOnlyItsPartOfTheArray() {
        assertEquals(List.of(20L, 30L, 40L), new LongRange(values, 1, 4));
        assertEquals(List.of(), new LongRange(values, 5, 5));
        assertThrows(IndexOutOfBoundsException.class, () -> new LongRange(values, 1, 4).get(3));
    }

    @Test
    void refusesRangesOutsideTheArray() {
        assertThrows(IndexOutOfBoundsException.class, () -> new LongRange(values, 3, 6));
        assertThrows(IndexOutOfBoundsException.class, () -> new LongRange(values, -1, 2));
        assertThrows(IndexOutOfBoundsException.class, () -> new LongRange(values, 3, 2));
    }

    @Test
    void addsAllItsValuesToAProtobufBuilderInOrder() {
        Sample sample = Sample.newBuilder().addTimestampsUnixNano(1).addAllTimestampsUnixNano(new LongRange(values, 2, 5))
                .build();
        assertEquals(List.of(1L, 30L, 40L, 50L), sample.getTimestampsUnixNanoList());
    }
}
