/**
 * Background work kept on the relay's one {@link java.time.Clock}: periodic jobs ({@code ClockedSchedule}) and work
 * due at a time ({@code DueWork}), so that tests move a test clock instead of waiting. Uses no other package of
 * the relay.
 */
package chunkrelay.envelope.schedule;
