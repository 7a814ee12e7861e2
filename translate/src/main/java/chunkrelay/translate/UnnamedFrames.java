package chunkrelay.translate;

/**
 * The name of a frame that has a file but no function name, as Sentry's own UI shows it (getsentry/sentry
 * {@code static/app/utils/profiling/frame.tsx} at 012f9fb, lines 52-63): {@code <anonymous>} for the frames of
 * JavaScript engines (web and Node: a function invoked as an IIFE or an anonymous callback), {@code <unknown>} for
 * every other platform's.
 */
final class UnnamedFrames {
    static final String ANONYMOUS = "<anonymous>";
    static final String UNKNOWN = "<unknown>";

    private UnnamedFrames() {
    }

    static String name(String platform) {
        return platform != null && "v8js".equals(Platforms.frameType(platform)) ? ANONYMOUS : UNKNOWN;
    }
}
