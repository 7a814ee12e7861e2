package chunkrelay.envelope.recovery;

import java.util.List;

/**
 * What one replay did.
 *
 * @param plan               what it found and set out to send
 * @param deliveredMeanwhile chunks it was to send that another replica or replay delivered first
 * @param delivered          chunks sent now and answered with 2xx (delivery marker written)
 * @param refused            chunks the endpoint refused for good now (refusal marker written, not sent again unasked)
 * @param failed             chunks that could not be read or delivered for a reason a later replay may overcome
 * @param refusals           one line per refused chunk: its stem and the endpoint's reason
 * @param failures           one line per failed chunk: its stem and why
 */
public record ReplaySummary(ReplayPlan plan, int deliveredMeanwhile, int delivered, int refused, int failed, List<String> refusals,
                            List<String> failures) {

    /** Every chunk of the range is delivered, now or before: none failed, none is refused. */
    public boolean complete() {
        return failed == 0 && refused == 0 && plan.skippedRefused() == 0;
    }

    public int found() {
        return plan.found();
    }

    /** Chunks not sent because they were delivered, before the replay or while it ran. */
    public int skippedDelivered() {
        return plan.skippedDelivered() + deliveredMeanwhile;
    }

    /**
     * One line, e.g. {@code replay of project 1, 2026-11-01..2026-11-22: found 12, skipped (already delivered) 3,
     * skipped (refused before) 0, delivered 8, refused 1, failed 0}.
     */
    public String describe() {
        return "replay of project " + plan.projectId() + ", " + plan.from() + ".." + plan.to() + ": found "
                + plan.found() + ", skipped (already delivered) " + skippedDelivered()
                + ", skipped (refused before) " + plan.skippedRefused() + ", delivered " + delivered + ", refused "
                + refused + ", failed " + failed;
    }
}
