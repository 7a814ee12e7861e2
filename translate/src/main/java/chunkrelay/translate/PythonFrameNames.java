package chunkrelay.translate;

import chunkrelay.chunk.Frame;

/**
 * Function names of Python frames as Python itself names a function: its module's {@code __name__}, a dot and its
 * {@code __qualname__} ({@code package.module.Class.method}, {@code module.outer.<locals>.inner}), the form pickle,
 * logging and tracebacks' qualified names use. sentry-sdk 2.x sends the qualified name in {@code function}
 * ({@code co_qualname} on Python 3.11 and later, {@code Class.method} rebuilt from {@code self} or {@code cls}
 * before) and the module in {@code module} (getsentry/sentry-python sentry_sdk/profiler/utils.py,
 * {@code get_frame_name} and {@code extract_frame}); Sentry's own views show {@code function} and the module apart,
 * an OTLP function has one name, so the two are joined.
 */
final class PythonFrameNames {
    private PythonFrameNames() {
    }

    static boolean isPython(String platform) {
        return "cpython".equals(Platforms.frameType(platform));
    }

    /** {@code module.qualname}, or the function as sent when the frame names no module or no function. */
    static String qualifiedName(Frame frame) {
        String function = frame.function();
        String module = frame.module();
        if (function == null || function.isEmpty() || module == null || module.isEmpty()
                || function.startsWith(module + ".")) {
            return function;
        }
        return module + "." + function;
    }
}
