package chunkrelay.translate.view;

import io.opentelemetry.proto.profiles.v1development.ProfilesDictionary;

/**
 * The stacks, locations and functions of one input of a merge, by index, as {@link FrameRemap} walks them: an OTLP
 * request's dictionary or a rollup's tables. Read by index, with no list or boxed index between, since the walk is on
 * the path of every merge.
 */
interface FrameSource {
    int stackCount();

    int locationCount();

    int functionCount();

    /** How many locations a stack has, leaf first. */
    int stackDepth(int stack);

    /** The location at {@code position} of a stack. */
    int stackLocation(int stack, int position);

    long address(int location);

    int lineCount(int location);

    /** The function of the line at {@code position} of a location. */
    int lineFunction(int location, int position);

    /** The line number of the line at {@code position} of a location. */
    long lineNumber(int location, int position);

    /** A function as the merged tables hold it. */
    MergedProfile.Function function(int function);

    /** The tables of an OTLP request's dictionary. */
    record Dictionary(ProfilesDictionary dictionary) implements FrameSource {
        @Override
        public int stackCount() {
            return dictionary.getStackTableCount();
        }

        @Override
        public int locationCount() {
            return dictionary.getLocationTableCount();
        }

        @Override
        public int functionCount() {
            return dictionary.getFunctionTableCount();
        }

        @Override
        public int stackDepth(int stack) {
            return dictionary.getStackTable(stack).getLocationIndicesCount();
        }

        @Override
        public int stackLocation(int stack, int position) {
            return dictionary.getStackTable(stack).getLocationIndices(position);
        }

        @Override
        public long address(int location) {
            return dictionary.getLocationTable(location).getAddress();
        }

        @Override
        public int lineCount(int location) {
            return dictionary.getLocationTable(location).getLinesCount();
        }

        @Override
        public int lineFunction(int location, int position) {
            return dictionary.getLocationTable(location).getLines(position).getFunctionIndex();
        }

        @Override
        public long lineNumber(int location, int position) {
            return dictionary.getLocationTable(location).getLines(position).getLine();
        }

        @Override
        public MergedProfile.Function function(int function) {
            io.opentelemetry.proto.profiles.v1development.Function otlp = dictionary.getFunctionTable(function);
            return new MergedProfile.Function(dictionary.getStringTable(otlp.getNameStrindex()),
                    emptyToNull(dictionary.getStringTable(otlp.getSystemNameStrindex())),
                    emptyToNull(dictionary.getStringTable(otlp.getFilenameStrindex())));
        }

        private static String emptyToNull(String text) {
            return text == null || text.isEmpty() ? null : text;
        }
    }

    /** The tables of a merged profile, a rollup's. */
    record Profile(MergedProfile profile) implements FrameSource {
        @Override
        public int stackCount() {
            return profile.stacks.size();
        }

        @Override
        public int locationCount() {
            return profile.locations.size();
        }

        @Override
        public int functionCount() {
            return profile.functions.size();
        }

        @Override
        public int stackDepth(int stack) {
            return profile.stacks.get(stack).length;
        }

        @Override
        public int stackLocation(int stack, int position) {
            return profile.stacks.get(stack)[position];
        }

        @Override
        public long address(int location) {
            return profile.locations.get(location).address();
        }

        @Override
        public int lineCount(int location) {
            return profile.locations.get(location).lines().size();
        }

        @Override
        public int lineFunction(int location, int position) {
            return profile.locations.get(location).lines().get(position).function();
        }

        @Override
        public long lineNumber(int location, int position) {
            return profile.locations.get(location).lines().get(position).line();
        }

        @Override
        public MergedProfile.Function function(int function) {
            return profile.functions.get(function);
        }
    }
}
