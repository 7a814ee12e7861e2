package chunkrelay.translate;

/**
 * The attribute keys the translation writes. OpenTelemetry semantic conventions where one exists;
 * {@code sentry.*} for what only a Sentry chunk carries, named after the Sentry field.
 */
public final class OtlpAttributes {
    private OtlpAttributes() {
    }

    // Resource (all written as plain string values)
    public static final String SERVICE_NAME = "service.name";
    public static final String SERVICE_VERSION = "service.version";
    public static final String DEPLOYMENT_ENVIRONMENT_NAME = "deployment.environment.name";
    public static final String TELEMETRY_SDK_NAME = "telemetry.sdk.name";
    public static final String TELEMETRY_SDK_VERSION = "telemetry.sdk.version";
    public static final String TELEMETRY_SDK_LANGUAGE = "telemetry.sdk.language";
    /** The chunk's Sentry platform exactly as sent ({@code node}, {@code java}, {@code cocoa}, ...). */
    public static final String PROCESS_RUNTIME_NAME = "process.runtime.name";
    public static final String SENTRY_PROJECT_ID = "sentry.project_id";

    /** Service name when neither an override nor a release with an {@code @} gives one. */
    public static final String UNKNOWN_SERVICE = "unknown_service";

    // Location
    public static final String PROFILE_FRAME_TYPE = "profile.frame.type";
    /** Boolean: the frame's {@code in_app}, only when the SDK sent it. */
    public static final String SENTRY_FRAME_IN_APP = "sentry.frame.in_app";
    /** The frame's {@code module} as sent (a JVM class, a Node module path, ...). */
    public static final String SENTRY_FRAME_MODULE = "sentry.frame.module";
    /** The frame's own {@code platform}, only when the frame carries one. */
    public static final String SENTRY_FRAME_PLATFORM = "sentry.frame.platform";

    // Sample
    /** Integer when the SDK's thread id is a canonical decimal number, otherwise the string as sent. */
    public static final String THREAD_ID = "thread.id";
    public static final String THREAD_NAME = "thread.name";
    /** Integer: {@code thread_metadata.priority}. */
    public static final String SENTRY_THREAD_PRIORITY = "sentry.thread.priority";

    // Mapping (from a debug_meta image)
    public static final String SENTRY_IMAGE_DEBUG_ID = "sentry.image.debug_id";
    public static final String SENTRY_IMAGE_CODE_ID = "sentry.image.code_id";
    public static final String SENTRY_IMAGE_UUID = "sentry.image.uuid";
    public static final String SENTRY_IMAGE_TYPE = "sentry.image.type";
    public static final String SENTRY_IMAGE_ARCH = "sentry.image.arch";
    /** Integer: the image's preferred load address ({@code image_vmaddr}), needed to symbolicate Mach-O. */
    public static final String SENTRY_IMAGE_VMADDR = "sentry.image.vmaddr";

    // Profile
    /**
     * 32 lowercase hex digits, as Relay writes it; ties chunks of one profiler session together. A profile attribute:
     * on the resource it would be a series label that changes at every process start.
     */
    public static final String SENTRY_PROFILER_ID = "sentry.profiler_id";
    /**
     * Prefix of one attribute per chunk measurement, e.g. {@code sentry.measurement.cpu_usage}: a kvlist
     * {@code {timestamps: [double], values: [double]}} as the SDK sent them, the unit in UCUM.
     */
    public static final String SENTRY_MEASUREMENT_PREFIX = "sentry.measurement.";
    /** Integer, only when spans of the profiler were known: samples linked to a span. */
    public static final String SENTRY_SAMPLES_LINKED = "sentry.profile.samples_linked";
    /** Integer, only when spans of the profiler were known: samples left unlinked because their spans do not nest. */
    public static final String SENTRY_SAMPLES_AMBIGUOUS = "sentry.profile.samples_ambiguous";
}
