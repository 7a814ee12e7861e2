package chunkrelay.translate.export;

/**
 * Outcome of exporting one request (all of its parts when it had to be split).
 *
 * @param delivered             every part was answered with 2xx
 * @param refused               not delivered, and sending it again cannot help: the endpoint refused it with a
 *                              status that is not retryable (see {@link AnswerOutcome}), or it could not be sent at
 *                              all (over the size limit and not splittable); false for a retryable failure whose
 *                              retry budget ran out, which a later replay may deliver
 * @param attempts              HTTP attempts made, over all parts
 * @param parts                 parts the request was sent as (1 unless it exceeded the size limit)
 * @param status                HTTP status of the last response, or {@link #NO_STATUS} when the last attempt got
 *                              none (connection failure, timeout) or the request could not be sent at all
 * @param reason                why delivery failed finally, with the endpoint's message; empty when delivered
 * @param rejectedProfiles      {@code partial_success.rejected_profiles} summed over the parts
 * @param partialSuccessMessage the first non-empty {@code partial_success.error_message}
 */
public record DeliveryResult(
        boolean delivered,
        boolean refused,
        int attempts,
        int parts,
        int status,
        String reason,
        long rejectedProfiles,
        String partialSuccessMessage) {

    /** Status of a result whose last attempt received no HTTP response. */
    public static final int NO_STATUS = 0;

    static DeliveryResult delivered(int attempts, int parts, int status, long rejected, String message) {
        return new DeliveryResult(true, false, attempts, parts, status, "", rejected, message);
    }

    /** Refused for good: a retry cannot succeed. */
    static DeliveryResult refused(int attempts, int parts, int status, String reason) {
        return new DeliveryResult(false, true, attempts, parts, status, reason, 0, "");
    }

    /** A retryable failure that outlasted the retry budget: left for a later replay. */
    static DeliveryResult gaveUp(int attempts, int parts, int status, String reason) {
        return new DeliveryResult(false, false, attempts, parts, status, reason, 0, "");
    }

    /** The receiver answered 2xx but reported rejected profiles or an error message (not retried). */
    public boolean partialSuccess() {
        return rejectedProfiles > 0 || !partialSuccessMessage.isEmpty();
    }
}
