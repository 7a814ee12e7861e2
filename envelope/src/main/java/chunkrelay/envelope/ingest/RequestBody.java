package chunkrelay.envelope.ingest;

import java.io.InputStream;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * A request body read completely, as the pieces the event loop received. It is read once, as a stream that drops
 * each piece and gives its memory back to the budget as soon as the reader is past it.
 */
public final class RequestBody implements AutoCloseable {
    private final Deque<byte[]> pieces;
    private final ChunkMemoryBudget.Reservation reservation;
    private final long size;

    RequestBody(Deque<byte[]> pieces, long size, ChunkMemoryBudget.Reservation reservation) {
        this.pieces = pieces;
        this.size = size;
        this.reservation = reservation;
    }

    public long size() {
        return size;
    }

    /** The body as a stream; each piece is let go once read. */
    public InputStream stream() {
        return new InputStream() {
            private byte[] current;
            private int position;

            private boolean advance() {
                while (current == null || position == current.length) {
                    if (current != null) {
                        reservation.release(current.length);
                    }
                    current = pieces.pollFirst();
                    position = 0;
                    if (current == null) {
                        return false;
                    }
                }
                return true;
            }

            /** What is left of the current piece: gzip looks for a next member only when something is available. */
            @Override
            public int available() {
                if (current != null && position < current.length) {
                    return current.length - position;
                }
                byte[] next = pieces.peekFirst();
                return next == null ? 0 : next.length;
            }

            @Override
            public int read() {
                return advance() ? current[position++] & 0xff : -1;
            }

            @Override
            public int read(byte[] buffer, int offset, int length) {
                if (length == 0) {
                    return 0;
                }
                if (!advance()) {
                    return -1;
                }
                int n = Math.min(length, current.length - position);
                System.arraycopy(current, position, buffer, offset, n);
                position += n;
                return n;
            }
        };
    }

    @Override
    public void close() {
        pieces.clear();
        reservation.close();
    }
}
