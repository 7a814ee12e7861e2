package chunkrelay.storage;

/**
 * The archive could not be written or read within the deadline and retry budget (server down, timing out,
 * refusing credentials, missing bucket). The chunk is not archived; the endpoint answers 503.
 */
public class ArchiveUnavailableException extends RuntimeException {
    private final boolean mayHaveWritten;

    public ArchiveUnavailableException(String message, Throwable cause) {
        this(message, cause, false);
    }

    ArchiveUnavailableException(String message, Throwable cause, boolean mayHaveWritten) {
        super(message, cause);
        this.mayHaveWritten = mayHaveWritten;
    }

    /** Whether a failed write may still have landed: an attempt failed in a way that does not rule it out. */
    public boolean mayHaveWritten() {
        return mayHaveWritten;
    }
}
