package chunkrelay.envelope.upstream;

/**
 * An envelope item passed on as received: its header line (re-serialised JSON, same fields) and its payload bytes.
 *
 * @param type     the item type
 * @param header   the item header line, without the newline
 * @param payload  the payload bytes, unchanged
 */
public record ForwardedItem(String type, byte[] header, byte[] payload) {

    public long size() {
        return header.length + payload.length + 2L;
    }
}
