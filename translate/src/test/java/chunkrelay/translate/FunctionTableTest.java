package chunkrelay.translate;

import chunkrelay.translate.view.FunctionTable;
import chunkrelay.translate.view.FunctionTableCsv;
import chunkrelay.translate.view.MergedProfile;
import chunkrelay.translate.view.ProfileMerger;
import chunkrelay.translate.view.ViewFilter;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.StringWriter;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The top-functions table of a small chunk, computed by hand: self and total samples (a recursive function once per
 * sample), shares, time, the order, the search and the pages, and its CSV.
 */
class FunctionTableTest {
    private static final ChunkTranslator TRANSLATOR = new ChunkTranslator("chunk-relay", "test");

    private static MergedProfile profile() {
        TestChunk chunk = new TestChunk();
        int main = chunk.frame(TestChunk.function("main", "app.py", 1));
        int handle = chunk.frame(TestChunk.function("handle", "app.py", 5));
        int query = chunk.frame(TestChunk.function("query", "db.py", 9));
        int fib = chunk.frame(TestChunk.function("fib", "app.py", 20));
        int cached = chunk.frame(TestChunk.function("query", "cache.py", 3));
        int render = chunk.frame(TestChunk.function("render, \"fast\"", "app.py", 30));
        int leafQuery = chunk.stack(query, handle, main);
        int leafHandle = chunk.stack(handle, main);
        int recursive = chunk.stack(fib, fib, fib, main);
        int leafCached = chunk.stack(cached, main);
        int leafRender = chunk.stack(render, main);
        chunk.sample(0, leafQuery, "1").sample(0, leafQuery, "2").sample(10_000_000, leafQuery, "1")
                .sample(10_000_000, recursive, "2").sample(20_000_000, leafHandle, "1")
                .sample(20_000_000, leafCached, "2").sample(30_000_000, recursive, "1")
                .sample(40_000_000, recursive, "1").sample(50_000_000, leafRender, "1");
        chunk.thread("1", "main", null).thread("2", "worker", null);
        ProfileMerger merger = new ProfileMerger(ViewFilter.all());
        merger.add(TRANSLATOR.translate(chunk.build(), TranslationContext.forProject(1)));
        return merger.result();
    }

    @Test
    void everyFunctionHasItsSelfAndTotalSamplesARecursiveOneOncePerSample() {
        MergedProfile profile = profile();
        FunctionTable table = FunctionTable.of(profile);
        assertEquals(9, table.samples());
        long period = profile.periodNanos();
        FunctionTable.Page page = table.page(FunctionTable.Order.SELF, null, 0, 100);
        assertEquals(List.of("fib 3 3", "query db.py 3 3", "handle 1 4", "query cache.py 1 1",
                "render, \"fast\" 1 1", "main 0 9"), page.rows().stream().map(r -> r.name()
                + (r.name().equals("query") ? " " + r.file() : "") + " " + r.self() + " " + r.total()).toList());
        assertEquals(9, page.rows().stream().mapToLong(FunctionTable.Row::self).sum(), "self adds up to the samples");
        FunctionTable.Row handle = page.rows().get(2);
        assertEquals(4.0 / 9, handle.totalShare(), 1e-12);
        assertEquals(1.0 / 9, handle.selfShare(), 1e-12);
        assertEquals(period, handle.selfNanos());
        assertEquals(4 * period, handle.totalNanos());
        assertEquals(9 * period, page.nanos());
        assertEquals(6, page.functions());
    }

    @Test
    void rowsAreOrderedSearchedAndPaged() {
        FunctionTable table = FunctionTable.of(profile());
        assertEquals(List.of("main", "handle", "fib"), table.page(FunctionTable.Order.TOTAL, "", 0, 3).rows().stream()
                .map(FunctionTable.Row::name).toList());
        FunctionTable.Page queries = table.page(FunctionTable.Order.SELF, "QUERY", 0, 10);
        assertEquals(2, queries.matching());
        assertEquals(List.of("db.py", "cache.py"), queries.rows().stream().map(FunctionTable.Row::file).toList());
        assertEquals(List.of("cache.py"), table.page(FunctionTable.Order.SELF, "cache", 0, 10).rows().stream()
                .map(FunctionTable.Row::file).toList());
        FunctionTable.Page second = table.page(FunctionTable.Order.SELF, null, 2, 2);
        assertEquals(2, second.offset());
        assertEquals(6, second.matching());
        assertEquals(List.of("handle", "query"), second.rows().stream().map(FunctionTable.Row::name).toList());
        assertEquals(0, table.page(FunctionTable.Order.SELF, null, 10, 2).rows().size());
    }

    @Test
    void csvQuotesFieldsWithCommasOrQuotes() throws IOException {
        FunctionTable table = FunctionTable.of(profile());
        StringWriter out = new StringWriter();
        FunctionTableCsv.write(table.page(FunctionTable.Order.TOTAL, "render", 0, 10).rows(), out);
        String[] lines = out.toString().split("\r\n");
        assertEquals("name,file,self_samples,total_samples,self_share,total_share,self_nanos,total_nanos", lines[0]);
        assertEquals("\"render, \"\"fast\"\"\",app.py,1,1,0.111111,0.111111,", lines[1].substring(0,
                lines[1].lastIndexOf("0.111111,") + "0.111111,".length()));
        assertEquals(2, lines.length);
    }
}
