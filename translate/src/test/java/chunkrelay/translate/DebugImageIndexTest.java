package chunkrelay.translate;

import chunkrelay.chunk.DebugImage;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

class DebugImageIndexTest {
    private static DebugImage image(Long address, Long size, String file) {
        return new DebugImage("macho", address, size, null, file, null, null, null, null);
    }

    @Test
    void findsTheImageWhoseRangeHoldsTheAddress() {
        DebugImage high = image(0xffff_ff00_0000_0000L, 0x1000L, "/high");
        DebugImage app = image(0x1000L, 0x1000L, "/app");
        DebugImage lib = image(0x4000L, 0x100L, "/lib");
        DebugImageIndex index = new DebugImageIndex(List.of(high, lib, app, image(null, 5L, "/no-address"),
                image(0x9000L, 0L, "/empty")));

        assertSame(app, index.find(0x1000L));
        assertSame(app, index.find(0x1fffL));
        assertNull(index.find(0x2000L), "the limit lies outside");
        assertNull(index.find(0xfffL));
        assertSame(lib, index.find(0x40ffL));
        assertNull(index.find(0x9000L), "an empty image holds nothing");
        assertSame(high, index.find(0xffff_ff00_0000_0fffL), "addresses compare unsigned");
    }

    @Test
    void prefersTheLaterStartingOfOverlappingImages() {
        DebugImage outer = image(0x1000L, 0x10000L, "/outer");
        DebugImage inner = image(0x2000L, 0x100L, "/inner");
        DebugImageIndex index = new DebugImageIndex(List.of(outer, inner));

        assertSame(inner, index.find(0x2000L));
        assertSame(outer, index.find(0x3000L), "past the inner image, the outer one still holds it");
    }
}
