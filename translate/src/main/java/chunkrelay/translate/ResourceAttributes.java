package chunkrelay.translate;

import chunkrelay.chunk.ProfileChunk;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.resource.v1.Resource;

import static chunkrelay.translate.OtlpAttributes.*;

/**
 * The resource of a translated chunk: the service, release, environment, SDK, runtime and project, as OpenTelemetry's
 * resource conventions name them. Consumers make these series labels (Pyroscope copies each string or integer one), so
 * only what a fleet shares goes here: per-session ids are profile attributes ({@link ProfileAttributes}).
 */
final class ResourceAttributes {
    private ResourceAttributes() {
    }

    static Resource of(ProfileChunk chunk, TranslationContext context) {
        Resource.Builder resource = Resource.newBuilder();
        put(resource, SERVICE_NAME, context.serviceName().orElseGet(() -> serviceNameOf(chunk.release())));
        put(resource, SERVICE_VERSION, chunk.release());
        put(resource, DEPLOYMENT_ENVIRONMENT_NAME, chunk.environment());
        if (chunk.clientSdk() != null) {
            put(resource, TELEMETRY_SDK_NAME, chunk.clientSdk().name());
            put(resource, TELEMETRY_SDK_VERSION, chunk.clientSdk().version());
        }
        if (chunk.platform() != null) {
            put(resource, TELEMETRY_SDK_LANGUAGE, Platforms.sdkLanguage(chunk.platform()));
            put(resource, PROCESS_RUNTIME_NAME, chunk.platform());
        }
        put(resource, SENTRY_PROJECT_ID, Long.toString(context.projectId()));
        return resource.build();
    }

    /** Sentry releases are conventionally {@code package@version}: the package names the service. */
    static String serviceNameOf(String release) {
        int at = release == null ? -1 : release.indexOf('@');
        return at > 0 ? release.substring(0, at) : UNKNOWN_SERVICE;
    }

    /** Resource attributes are plain key and string_value: the collector does not resolve strindex forms. */
    private static void put(Resource.Builder resource, String key, String value) {
        if (value != null && !value.isEmpty()) {
            resource.addAttributes(KeyValue.newBuilder().setKey(key)
                    .setValue(AnyValue.newBuilder().setStringValue(value)));
        }
    }
}
