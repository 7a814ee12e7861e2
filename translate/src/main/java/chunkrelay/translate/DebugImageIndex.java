package chunkrelay.translate;

import chunkrelay.chunk.DebugImage;

import java.util.ArrayList;
import java.util.List;

/** Finds the debug image whose address range holds an instruction address. */
final class DebugImageIndex {
    private final DebugImage[] byStart;

    DebugImageIndex(List<DebugImage> images) {
        List<DebugImage> located = new ArrayList<>();
        for (DebugImage image : images) {
            if (image.imageAddr() != null && image.imageSize() != null && image.imageSize() > 0) {
                located.add(image);
            }
        }
        located.sort((a, b) -> Long.compareUnsigned(a.imageAddr(), b.imageAddr()));
        byStart = located.toArray(DebugImage[]::new);
    }

    /** The image containing {@code address}, or null; of overlapping images, the one starting last. */
    DebugImage find(long address) {
        int low = 0;
        int high = byStart.length - 1;
        int candidate = -1;
        while (low <= high) {
            int mid = (low + high) >>> 1;
            if (Long.compareUnsigned(byStart[mid].imageAddr(), address) <= 0) {
                candidate = mid;
                low = mid + 1;
            } else {
                high = mid - 1;
            }
        }
        for (int i = candidate; i >= 0; i--) {
            if (byStart[i].contains(address)) {
                return byStart[i];
            }
        }
        return null;
    }
}
