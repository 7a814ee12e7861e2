package chunkrelay.envelope.health;

import com.fasterxml.jackson.annotation.JsonInclude;

import java.util.Map;

/**
 * One SDK's row of the health answer.
 *
 * @param sdk            the SDK's name ({@code client_sdk.name} of the chunk, else {@code sdk.name} of the envelope)
 * @param version        its version, likewise
 * @param platform       the chunk's platform (the item header's, else the payload's)
 * @param chunks         chunks accepted and archived (duplicates of a chunk archived before not counted)
 * @param rejected       chunks refused, by Relay's reason name or {@code internal_error}; reasons with none left out
 * @param samples        samples the accepted chunks came with, before normalisation
 * @param samplesDropped samples normalisation dropped from accepted chunks, by rule; rules with none left out
 * @param sessions       distinct profiler ids of the accepted chunks
 * @param sessionsCapped whether the session counts are not exact: past {@code relay.health.max-sessions} profiler ids
 *                       in an hour, or {@link HealthQuestions#MAX_SESSIONS_PER_ANSWER} in the answer, {@code sessions}
 *                       and the silent counts are lower bounds
 * @param transactions   transactions (and span items' segments) naming a profiler id
 * @param silentSessions profiler ids those transactions name with no chunk of that id received within
 *                       {@link HealthQuestions#silenceMargin} of the range
 * @param transactionsSilent transactions naming a silent session
 * @param transactionsUncovered transactions naming a session that sent chunks (so not silent), none of which spans
 *                       any moment of the transaction: told once the chunks that could have come have had
 *                       {@link HealthQuestions#silenceMargin} to come, until then not counted
 * @param linkedSamples  samples of the accepted chunks linked to a span when the chunk was linked (after its link
 *                       window), counted once per chunk in the minute the chunk was received
 * @param linkableSamples samples a span of their thread covers: the linked ones and the ambiguous ones (covered by
 *                       spans that do not nest); the others no span covers. Counted likewise. A chunk derived by
 *                       the recovery pass or replay, which did not wait in this relay's memory, counts under its own
 *                       {@code client_sdk} and platform and its last sample's minute
 */
@JsonInclude(JsonInclude.Include.ALWAYS)
public record SdkHealth(String sdk, String version, String platform, long chunks, Map<String, Long> rejected,
                        long samples, Map<String, Long> samplesDropped, long sessions, boolean sessionsCapped,
                        long transactions, long silentSessions, long transactionsSilent, long transactionsUncovered,
                        long linkedSamples,
                        long linkableSamples) {
}
