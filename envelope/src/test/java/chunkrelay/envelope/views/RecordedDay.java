package chunkrelay.envelope.views;

import chunkrelay.chunk.fixtures.Fixtures;
import chunkrelay.chunk.fixtures.RecordedChunk;
import chunkrelay.chunk.fixtures.SdkRequest;

import java.util.List;
import java.util.Set;

/**
 * The recorded SDK requests of 2026-11-22 (UTC), the day the views tests query: the Node and Java captures. The
 * Python capture is of 2026-11-27 and stays out, so that a day's range holds every chunk replayed.
 */
final class RecordedDay {
    private static final Set<String> CAPTURES = Set.of("node-11.1.0", "node-11.1.0-long", "java-8.43.0");

    private RecordedDay() {
    }

    static List<SdkRequest> requests() {
        return Fixtures.sdkRequests().stream().filter(request -> ofTheDay(request.name())).toList();
    }

    static List<RecordedChunk> chunks() {
        return Fixtures.sdkChunks().stream().filter(chunk -> ofTheDay(chunk.request())).toList();
    }

    private static boolean ofTheDay(String request) {
        return CAPTURES.contains(request.substring(0, request.indexOf('/')));
    }
}
