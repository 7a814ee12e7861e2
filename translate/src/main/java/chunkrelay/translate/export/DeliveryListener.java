package chunkrelay.translate.export;

/**
 * Told the end of every request a {@link ForwardingQueue} accepted, exactly once per accepted request, so the
 * application can write a delivery marker or a replay marker next to the archived object. Called on the
 * queue's worker threads (and on the closing thread for requests left at shutdown); implementations must be
 * thread-safe and should not block for long. Exceptions thrown here are logged and otherwise ignored.
 */
public interface DeliveryListener {

    /** Every part got a 2xx (possibly with a partial success, see {@link DeliveryResult#partialSuccess()}). */
    void delivered(String key, DeliveryResult result);

    /** Failed finally: a non-retryable status, or retries exhausted. Mark the request for replay. */
    void failed(String key, DeliveryResult result);

    /** Abandoned when the queue closed (never sent, or interrupted mid-flight). Mark the request for replay. */
    void dropped(String key, String reason);
}
