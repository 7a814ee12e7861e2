package chunkrelay.envelope.views;

import chunkrelay.translate.view.FunctionTable;
import chunkrelay.translate.view.MergedProfile;
import chunkrelay.translate.view.Regressions;
import com.fasterxml.jackson.annotation.JsonInclude;
import jakarta.inject.Singleton;

import java.util.List;
import java.util.Locale;

/**
 * Which functions cost the most (the top-functions table) and which got slower or faster between two releases or
 * ranges (regressions), answered from the same merged profile as the flame graph ({@link ProfileViews}: rollups and
 * the chunks at the edges, every filter, the same chunk cap), one walk of its stacks each.
 */
@Singleton
public class FunctionQuestions {
    /** Rows a table page holds when no limit is given. */
    static final int DEFAULT_LIMIT = 100;

    private final ProfileViews views;
    private final RegressionsConfig config;

    public FunctionQuestions(ProfileViews views, RegressionsConfig config) {
        this.views = views;
        this.config = config;
    }

    /** A page of the table and what it was asked for. */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    public record TableAnswer(long project, String from, String to, String sort, String search, long samples,
                              long nanos, int functions, int matching, int offset, List<FunctionTable.Row> rows) {
        static TableAnswer of(ViewQuery query, FunctionTable.Order order, String search, FunctionTable.Page page) {
            return new TableAnswer(query.project(), query.from().toString(), query.to().toString(),
                    order.name().toLowerCase(Locale.ROOT), search, page.samples(), page.nanos(), page.functions(),
                    page.matching(), page.offset(), page.rows());
        }
    }

    /** Every function of the query's merged profile. */
    public FunctionTable table(ViewQuery query) {
        MergedProfile profile = views.profile(query);
        return FunctionTable.of(profile);
    }

    /** Both sides merged (each as the diff's) and their functions judged. */
    public Regressions.Result regressions(DiffSide baseline, DiffSide comparison) {
        return Regressions.compare(baseline.label(), views.profile(baseline.query()), comparison.label(),
                views.profile(comparison.query()), config.settings());
    }

    /**
     * The {@code sort} parameter: self (the default) or total.
     *
     * @throws chunkrelay.envelope.errors.RelayError 400 for anything else
     */
    static FunctionTable.Order order(String sort) {
        if (sort == null || sort.isBlank() || sort.equalsIgnoreCase("self")) {
            return FunctionTable.Order.SELF;
        }
        if (sort.equalsIgnoreCase("total")) {
            return FunctionTable.Order.TOTAL;
        }
        throw ViewQuery.bad("sort must be self or total, got '" + sort + "'");
    }

    /**
     * A non-negative whole number parameter, or {@code otherwise} when absent.
     *
     * @throws chunkrelay.envelope.errors.RelayError 400 for anything else
     */
    static int count(String name, String value, int otherwise) {
        if (value == null || value.isBlank()) {
            return otherwise;
        }
        try {
            int parsed = Integer.parseInt(value.trim());
            if (parsed >= 0) {
                return parsed;
            }
        } catch (NumberFormatException e) {
            // the message below
        }
        throw ViewQuery.bad(name + " must be a whole number, 0 or more, got '" + value + "'");
    }
}
