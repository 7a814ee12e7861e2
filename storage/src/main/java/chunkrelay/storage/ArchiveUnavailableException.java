package chunkrelay.storage;

/**
 * The archive could not be written or read within the deadline and retry budget (server down, timing out,
 * refusing credentials, missing bucket). The chunk is not archived; the endpoint answers 503.
 */
public class ArchiveUnavailableException extends RuntimeException {
    public ArchiveUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
