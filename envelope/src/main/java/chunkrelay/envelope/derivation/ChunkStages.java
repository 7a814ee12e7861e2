package chunkrelay.envelope.derivation;

import chunkrelay.envelope.telemetry.RelayMeter;
import io.micrometer.core.instrument.MeterRegistry;

import java.util.function.Supplier;

/** The latency histogram of each stage a chunk passes ({@link RelayMeter#CHUNK_STAGE}). */
public final class ChunkStages {
    private ChunkStages() {
    }

    public static <T> T timed(MeterRegistry meters, String stage, Supplier<T> work) {
        return RelayMeter.CHUNK_STAGE.timer(meters, stage).record(work);
    }
}
