package chunkrelay.envelope.upstream;

import chunkrelay.envelope.schedule.BackgroundWork;
import io.micronaut.context.annotation.Factory;
import jakarta.inject.Named;
import jakarta.inject.Singleton;

import java.net.http.HttpClient;

/**
 * The one HTTP client to the upstream Sentry, shared by the senders ({@link UpstreamClient}) and the pass-through
 * endpoints ({@link UpstreamPassThroughController}): one connection pool and one selector thread for the one
 * destination, its threads ({@code upstream-http-N}) made and stopped by {@link BackgroundWork}.
 */
@Factory
class UpstreamHttpFactory {
    static final String UPSTREAM = "upstream";

    /** Its executor runs the exchanges' short steps (the selector thread does the I/O), not a thread per request. */
    @Singleton
    @Named(UPSTREAM)
    HttpClient upstreamHttp(UpstreamConfig config, BackgroundWork work) {
        return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(config.connectTimeout())
                .executor(work.clientThreads("upstream-http", Math.max(2, config.senders()))).build();
    }
}
