package chunkrelay.envelope.health;

import chunkrelay.chunk.ChunkRejectionReason;
import chunkrelay.chunk.SampleDropRule;
import chunkrelay.envelope.derivation.ChunkDerivations;

import java.io.IOException;
import java.io.Writer;
import java.util.List;
import java.util.TreeSet;

/**
 * The health answer as CSV, one row per SDK: {@code sdk,version,platform,chunks,samples,sessions,sessions_capped,transactions,
 * silent_sessions,transactions_silent,transactions_uncovered,linked_samples,linkable_samples},
 * then one column {@code rejected.<reason>} per reason name and one {@code dropped.<rule>} per rule, sorted by name:
 * every reason and rule the relay knows (so that the columns do not change with the range), and any other one a
 * part of another version holds; 0 where none. Values that are not numbers are quoted when they hold a comma, quote or
 * line break, with quotes doubled (RFC 4180).
 */
final class HealthCsv {
    private HealthCsv() {
    }

    static void write(List<SdkHealth> rows, Writer out) throws IOException {
        TreeSet<String> reasons = new TreeSet<>();
        for (ChunkRejectionReason reason : ChunkRejectionReason.values()) {
            reasons.add(reason.relayName());
        }
        reasons.add(ChunkDerivations.INTERNAL_ERROR);
        TreeSet<String> rules = new TreeSet<>();
        for (SampleDropRule rule : SampleDropRule.values()) {
            rules.add(rule.ruleName());
        }
        for (SdkHealth row : rows) {
            reasons.addAll(row.rejected().keySet());
            rules.addAll(row.samplesDropped().keySet());
        }
        StringBuilder header = new StringBuilder("sdk,version,platform,chunks,samples,sessions,sessions_capped,"
                + "transactions,silent_sessions,transactions_silent,transactions_uncovered,linked_samples,"
                + "linkable_samples");
        reasons.forEach(reason -> header.append(",rejected.").append(reason));
        rules.forEach(rule -> header.append(",dropped.").append(rule));
        out.write(header.append("\r\n").toString());
        for (SdkHealth row : rows) {
            StringBuilder line = new StringBuilder();
            line.append(quoted(row.sdk())).append(',').append(quoted(row.version())).append(',')
                    .append(quoted(row.platform())).append(',').append(row.chunks()).append(',')
                    .append(row.samples()).append(',').append(row.sessions()).append(',').append(row.sessionsCapped())
                    .append(',').append(row.transactions()).append(',').append(row.silentSessions()).append(',')
                    .append(row.transactionsSilent()).append(',').append(row.transactionsUncovered()).append(',')
                    .append(row.linkedSamples()).append(',')
                    .append(row.linkableSamples());
            reasons.forEach(reason -> line.append(',').append(row.rejected().getOrDefault(reason, 0L)));
            rules.forEach(rule -> line.append(',').append(row.samplesDropped().getOrDefault(rule, 0L)));
            out.write(line.append("\r\n").toString());
        }
        out.flush();
    }

    private static String quoted(String value) {
        if (value.indexOf(',') < 0 && value.indexOf('"') < 0 && value.indexOf('\n') < 0 && value.indexOf('\r') < 0) {
            return value;
        }
        return '"' + value.replace("\"", "\"\"") + '"';
    }
}
