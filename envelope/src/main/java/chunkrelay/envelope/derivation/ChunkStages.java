package chunkrelay.envelope.derivation;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import java.util.function.Supplier;

/** The latency histogram of each stage a chunk passes ({@code relay.chunk.stage}: parse, translate, archive, forward). */
public final class ChunkStages {
    private ChunkStages() {
    }

    public static <T> T timed(MeterRegistry meters, String stage, Supplier<T> work) {
        return Timer.builder("relay.chunk.stage").tag("stage", stage).publishPercentileHistogram()
                .register(meters).record(work);
    }
}
