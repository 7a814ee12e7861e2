package chunkrelay.translate.view;

import java.util.ArrayList;
import java.util.List;

/**
 * The frames of a {@link MergedProfile}'s stacks as flame graphs draw them: root first, a location's inlined functions
 * outermost first, a location without lines named by its address; one frame per function (name and file), so that the
 * lines of a function are one box, as in pprof's flame graph and on the page.
 */
final class RootFirstFrames {
    /** A function as a frame: its name ({@code <unknown>} when it has none) and file (null when unknown). */
    record Frame(String name, String file) {
    }

    private RootFirstFrames() {
    }

    static List<Frame> of(MergedProfile profile, int stack) {
        int[] locations = profile.stacks().get(stack);
        List<Frame> frames = new ArrayList<>(locations.length);
        for (int i = locations.length - 1; i >= 0; i--) {
            MergedProfile.Location location = profile.locations().get(locations[i]);
            List<MergedProfile.Line> lines = location.lines();
            if (lines.isEmpty()) {
                frames.add(new Frame("0x" + Long.toHexString(location.address()), null));
            }
            for (int l = lines.size() - 1; l >= 0; l--) {
                MergedProfile.Function function = profile.functions().get(lines.get(l).function());
                String name = function.name() == null || function.name().isEmpty() ? "<unknown>" : function.name();
                frames.add(new Frame(name, function.file()));
            }
        }
        return frames;
    }
}
