package chunkrelay.translate.view;

import chunkrelay.chunk.primitive.IndexedSet;

import java.util.List;

/**
 * The functions of a {@link MergedProfile} as the flame graph draws them (one frame per name and file,
 * {@link RootFirstFrames}), indexed once, and its stacks read as frame indices without building a list per stack:
 * the leaf frame (self) and the distinct frames (total: a function counts once per sample however often it recurses).
 * Holds arrays as large as the profile's functions and locations, never its samples. Not thread-safe.
 */
final class FunctionFrames {
    private final MergedProfile profile;
    private final IndexedSet<RootFirstFrames.Frame> frames = IndexedSet.byValue();
    /** Per location, its frames outermost (caller) first; a location without lines is one frame named by address. */
    private final int[][] locationFrames;
    /** Per frame, the last walk that saw it: a stack's distinct frames without a set per stack. */
    private final int[] lastSeen;
    private int walk;

    FunctionFrames(MergedProfile profile) {
        this.profile = profile;
        int[] frameOfFunction = new int[profile.functions().size()];
        for (int f = 0; f < frameOfFunction.length; f++) {
            MergedProfile.Function function = profile.functions().get(f);
            String name = function.name() == null || function.name().isEmpty() ? "<unknown>" : function.name();
            frameOfFunction[f] = frames.indexOf(new RootFirstFrames.Frame(name, function.file()));
        }
        locationFrames = new int[profile.locations().size()][];
        for (int l = 0; l < locationFrames.length; l++) {
            MergedProfile.Location location = profile.locations().get(l);
            List<MergedProfile.Line> lines = location.lines();
            if (lines.isEmpty()) {
                locationFrames[l] = new int[] {
                        frames.indexOf(new RootFirstFrames.Frame("0x" + Long.toHexString(location.address()), null))};
                continue;
            }
            int[] ofLocation = new int[lines.size()];
            for (int i = 0; i < ofLocation.length; i++) {
                ofLocation[i] = frameOfFunction[lines.get(lines.size() - 1 - i).function()];
            }
            locationFrames[l] = ofLocation;
        }
        lastSeen = new int[frames.size()];
    }

    int size() {
        return frames.size();
    }

    RootFirstFrames.Frame frame(int index) {
        return frames.get(index);
    }

    /** The frame a stack's samples are self time of: the innermost function of its leaf location. */
    int leaf(int stack) {
        int[] ofLeaf = locationFrames[profile.stacks().get(stack)[0]];
        return ofLeaf[ofLeaf.length - 1];
    }

    /**
     * Writes the distinct frames of a stack into {@code into} (at least {@link #maxDepth()} long) and returns how
     * many.
     */
    int distinct(int stack, int[] into) {
        walk++;
        int count = 0;
        for (int location : profile.stacks().get(stack)) {
            for (int frame : locationFrames[location]) {
                if (lastSeen[frame] != walk) {
                    lastSeen[frame] = walk;
                    into[count++] = frame;
                }
            }
        }
        return count;
    }

    /** The most frames any stack has: the length {@link #distinct} needs. */
    int maxDepth() {
        int most = 0;
        for (int[] stack : profile.stacks()) {
            int depth = 0;
            for (int location : stack) {
                depth += locationFrames[location].length;
            }
            most = Math.max(most, depth);
        }
        return most;
    }
}
