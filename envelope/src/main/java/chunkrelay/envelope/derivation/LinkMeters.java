package chunkrelay.envelope.derivation;

import chunkrelay.envelope.telemetry.RelayMeter;
import chunkrelay.translate.ChunkTranslator;
import io.micrometer.core.instrument.MeterRegistry;

/** How a translated chunk's samples fared against the spans: linked, or unlinked for lack of a span or ambiguity. */
public final class LinkMeters {
    private LinkMeters() {
    }

    public static void register(MeterRegistry meters) {
        RelayMeter.SAMPLES_LINKED.counter(meters);
        RelayMeter.SAMPLES_UNLINKED.counter(meters, "no_span");
        RelayMeter.SAMPLES_UNLINKED.counter(meters, "ambiguous");
    }

    public static void record(MeterRegistry meters, ChunkTranslator.Translated translated) {
        record(meters, translated.linkedSamples(), translated.unlinkedSamples(), translated.ambiguousSamples());
    }

    public static void record(MeterRegistry meters, int linked, int unlinked, int ambiguous) {
        RelayMeter.SAMPLES_LINKED.counter(meters).increment(linked);
        RelayMeter.SAMPLES_UNLINKED.counter(meters, "no_span").increment(unlinked);
        RelayMeter.SAMPLES_UNLINKED.counter(meters, "ambiguous").increment(ambiguous);
    }
}
