package chunkrelay.envelope.derivation;

import chunkrelay.translate.ChunkTranslator;
import io.micrometer.core.instrument.MeterRegistry;

/** How a translated chunk's samples fared against the spans: linked, or unlinked for lack of a span or ambiguity. */
public final class LinkMeters {
    private LinkMeters() {
    }

    public static void register(MeterRegistry meters) {
        meters.counter("relay.samples.linked");
        meters.counter("relay.samples.unlinked", "why", "no_span");
        meters.counter("relay.samples.unlinked", "why", "ambiguous");
    }

    public static void record(MeterRegistry meters, ChunkTranslator.Translated translated) {
        record(meters, translated.linkedSamples(), translated.unlinkedSamples(), translated.ambiguousSamples());
    }

    public static void record(MeterRegistry meters, int linked, int unlinked, int ambiguous) {
        meters.counter("relay.samples.linked").increment(linked);
        meters.counter("relay.samples.unlinked", "why", "no_span").increment(unlinked);
        meters.counter("relay.samples.unlinked", "why", "ambiguous").increment(ambiguous);
    }
}
