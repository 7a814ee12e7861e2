package chunkrelay.translate;

import chunkrelay.chunk.Frame;

/**
 * Function names of frames of JVM platforms (Java and Android) as JVM profilers and Pyroscope show them: the
 * qualified {@code package.Class.method}, where Sentry frames carry the method in {@code function} and the class in
 * {@code module}. Java SDK frames cut {@code module} at the first {@code $} and keep the whole class name, inner or
 * generated classes included, in {@code filename}; that whole name is used when it extends the module.
 */
final class JvmFrameNames {
    private JvmFrameNames() {
    }

    static boolean isJvm(String platform) {
        return "jvm".equals(Platforms.frameType(platform));
    }

    /** {@code package.Class.method}, or the bare function when the frame names no class or no method. */
    static String qualifiedName(Frame frame) {
        String function = frame.function();
        String className = className(frame);
        if (function == null || function.isEmpty() || className == null || function.startsWith(className + ".")) {
            return function;
        }
        return className + "." + function;
    }

    /** The qualified name followed by the JNI signature, or null when the frame has no signature. */
    static String systemName(Frame frame) {
        String name = qualifiedName(frame);
        return frame.signature() == null || frame.signature().isEmpty() || name == null ? null
                : name + frame.signature();
    }

    private static String className(Frame frame) {
        String module = frame.module();
        if (module == null || module.isEmpty()) {
            return null;
        }
        String filename = frame.filename();
        if (filename != null && filename.length() > module.length() && filename.startsWith(module)
                && filename.charAt(module.length()) == '$') {
            return filename;
        }
        return module;
    }
}
