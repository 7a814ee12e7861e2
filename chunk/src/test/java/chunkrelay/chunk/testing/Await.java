package chunkrelay.chunk.testing;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Polls until a condition holds: the one wait of every module's tests for work another thread or process does. */
public final class Await {
    /** The longest pause between two looks: a costly condition (a bucket listing, an HTTP call) is not spun on. */
    private static final long MAX_PAUSE_MILLIS = 50;

    private Await() {
    }

    /** Waits until {@code condition} holds, failing with {@code what} after {@code timeout}. */
    public static void until(String what, Duration timeout, BooleanSupplier condition) throws InterruptedException {
        until(() -> what, timeout, condition);
    }

    /**
     * Waits until {@code condition} holds, failing after {@code timeout} with {@code what}, told then: what was seen
     * at the end.
     */
    public static void until(Supplier<String> what, Duration timeout, BooleanSupplier condition)
            throws InterruptedException {
        long until = System.nanoTime() + timeout.toNanos();
        // pauses double from 1 ms, so a condition met almost at once is seen almost at once
        long pause = 1;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > until) {
                throw new AssertionError("timed out after " + timeout.toSeconds() + " s waiting for " + what.get());
            }
            Thread.sleep(pause);
            pause = Math.min(pause * 2, MAX_PAUSE_MILLIS);
        }
    }
}
