package chunkrelay.chunk;

/** Why a chunk was dropped, named as Relay names the outcome. */
public enum ChunkRejectionReason {
    INVALID_JSON("profiling_invalid_json"),
    NOT_ENOUGH_SAMPLES("profiling_not_enough_samples"),
    MALFORMED_SAMPLES("profiling_malformed_samples"),
    MALFORMED_STACKS("profiling_malformed_stacks"),
    DURATION_IS_TOO_LONG("profiling_duration_is_too_long"),
    DURATION_IS_ZERO("profiling_duration_is_zero"),
    INVALID_PROFILE_TYPE("profiling_invalid_profile_type"),
    PLATFORM_NOT_SUPPORTED("profiling_platform_not_supported"),
    INVALID_SAMPLED_PROFILE("profiling_invalid_sampled_profile"),
    INVALID_BASE64_VALUE("profiling_invalid_base64_value"),
    EXCEED_SIZE_LIMIT("profiling_exceed_size_limit");

    private final String relayName;

    ChunkRejectionReason(String relayName) {
        this.relayName = relayName;
    }

    public String relayName() {
        return relayName;
    }
}
