package chunkrelay.translate.view;

import java.io.IOException;
import java.io.Writer;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Writes a {@link MergedProfile} as collapsed stacks, the input of flame-graph tools: one line per distinct stack,
 * its function names root first joined by {@code ;}, a space and its sample count, all threads together, in line
 * order. Inlined functions appear as their own frames, outermost first.
 */
public final class CollapsedStacksWriter {
    private CollapsedStacksWriter() {
    }

    public static void write(MergedProfile profile, Writer out) throws IOException {
        Map<String, Long> counts = new TreeMap<>();
        String[] stackLines = new String[profile.stacks().size()];
        for (MergedProfile.SampleGroup group : profile.samples()) {
            String line = stackLines[group.stack()];
            if (line == null) {
                line = stackLines[group.stack()] = collapsed(profile, profile.stacks().get(group.stack()));
            }
            counts.merge(line, group.count(), Long::sum);
        }
        for (Map.Entry<String, Long> entry : counts.entrySet()) {
            out.write(entry.getKey());
            out.write(' ');
            out.write(Long.toString(entry.getValue()));
            out.write('\n');
        }
        out.flush();
    }

    private static String collapsed(MergedProfile profile, int[] stack) {
        StringBuilder line = new StringBuilder();
        for (int i = stack.length - 1; i >= 0; i--) {
            List<MergedProfile.Line> lines = profile.locations().get(stack[i]).lines();
            for (int l = lines.size() - 1; l >= 0; l--) {
                if (!line.isEmpty()) {
                    line.append(';');
                }
                line.append(frameName(profile.functions().get(lines.get(l).function()).name()));
            }
            if (lines.isEmpty()) {
                if (!line.isEmpty()) {
                    line.append(';');
                }
                line.append("0x").append(Long.toHexString(profile.locations().get(stack[i]).address()));
            }
        }
        return line.toString();
    }

    /** The separators of the format cannot appear in a name. */
    private static String frameName(String name) {
        return name == null || name.isEmpty() ? "<unknown>" : name.replace(';', ':').replace('\n', ' ');
    }
}
