package chunkrelay.translate;

import chunkrelay.chunk.ProfileChunk;
import io.opentelemetry.proto.profiles.v1development.Profile;

import static chunkrelay.translate.OtlpAttributes.SENTRY_PROFILER_ID;

/**
 * What identifies one chunk's profiler session, as profile attributes: per-session ids belong to the profile, not to
 * the resource, whose attributes consumers make series labels (Pyroscope copies every string or integer resource
 * attribute into the labels of a series, so a per-session id there would start new series at every process start).
 * The chunk id is the profile's {@code profile_id}.
 */
final class ProfileAttributes {
    private ProfileAttributes() {
    }

    static void addTo(Profile.Builder profile, ProfileChunk chunk, ProfilesDictionaryBuilder dictionary) {
        if (chunk.profilerId() != null) {
            profile.addAttributeIndices(dictionary.attribute(SENTRY_PROFILER_ID, chunk.profilerId().toHex()));
        }
    }
}
