package chunkrelay.envelope.telemetry;

import chunkrelay.chunk.fixtures.Fixtures;
import chunkrelay.chunk.fixtures.SdkRequest;
import chunkrelay.envelope.rollups.RollupBuilder;
import chunkrelay.envelope.testing.PrometheusScrape;
import chunkrelay.envelope.testing.RunningRelay;
import chunkrelay.storage.EmbeddedS3Server;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The catalogue is what the running relay registers: after every recorded SDK request (chunks, spans, transactions,
 * sessions) and a round of the rollup builder, every {@code relay.} meter in its registry is declared in
 * {@link RelayMeter} with that kind, unit and tag keys, its fixed tag values among the declared ones, and every
 * {@code relay_} series at {@code GET /prometheus} is one of the declared meters under its declared Prometheus name.
 */
class RegisteredMetersTest {
    private static final Set<String> SERIES_SUFFIXES = Set.of("", "_bucket", "_count", "_sum", "_max");

    @Test
    void everyMeterTheRunningRelayRegistersIsDeclaredWithItsKindUnitAndTags() {
        try (EmbeddedS3Server s3 = EmbeddedS3Server.inMemory();
             RunningRelay relay = RunningRelay.start(s3, Map.of())) {
            for (SdkRequest request : Fixtures.sdkRequests()) {
                List<String> headers = new ArrayList<>();
                request.headers().forEach(h -> headers.addAll(List.of(h.name(), h.value())));
                assertEquals(200, relay.client().post(request.pathAndQuery(), request.body(),
                        headers.toArray(String[]::new)).status(), request.name());
            }
            relay.bean(RollupBuilder.class).runOnce();

            Map<String, RelayMeter> declared = Arrays.stream(RelayMeter.values())
                    .collect(Collectors.toMap(RelayMeter::meterName, m -> m));
            List<String> undeclared = new ArrayList<>();
            Set<RelayMeter> registered = EnumSet.noneOf(RelayMeter.class);
            for (Meter meter : relay.bean(MeterRegistry.class).getMeters()) {
                Meter.Id id = meter.getId();
                if (!id.getName().startsWith("relay")) {
                    continue;
                }
                RelayMeter spec = declared.get(id.getName());
                if (spec == null) {
                    undeclared.add(id.getName() + " is not in the catalogue");
                    continue;
                }
                registered.add(spec);
                // a timer's unit is the registry's (seconds for Prometheus), not the meter's
                boolean unit = spec.kind() == Meter.Type.TIMER || Objects.equals(spec.baseUnit(), id.getBaseUnit());
                if (spec.kind() != id.getType() || !unit) {
                    undeclared.add(id.getName() + " is a " + id.getType() + " in " + id.getBaseUnit() + ", declared a "
                            + spec.kind() + " in " + spec.baseUnit());
                }
                List<String> keys = id.getTags().stream().map(Tag::getKey).sorted().toList();
                if (!keys.equals(spec.tags().stream().map(MeterTag::key).sorted().toList())) {
                    undeclared.add(id.getName() + " has tags " + keys + ", declared " + spec.tags());
                }
                for (MeterTag tag : spec.tags()) {
                    String value = id.getTag(tag.key());
                    if (tag.fixed() && !tag.values().contains(value)) {
                        undeclared.add(id.getName() + " has " + tag.key() + "=" + value + ", declared " + tag.values());
                    }
                }
            }
            assertEquals(List.of(), undeclared);
            // the chunk path, derivation, links, rollups, retention, export and upstream meters were all made
            for (RelayMeter expected : List.of(RelayMeter.ENVELOPES, RelayMeter.CHUNKS_ACCEPTED,
                    RelayMeter.CHUNK_STAGE, RelayMeter.CHUNKS_DERIVED, RelayMeter.SAMPLES_LINKED,
                    RelayMeter.SPANS_INDEXED, RelayMeter.ROLLUPS_BUILT, RelayMeter.ROLLUPS_LATE_CHUNKS,
                    RelayMeter.RETENTION_SWEEPS, RelayMeter.EXPORT_OUTCOMES, RelayMeter.UPSTREAM_QUEUE_DEPTH)) {
                assertTrue(registered.contains(expected), expected + " registered: " + registered);
            }

            Set<String> names = new TreeSet<>();
            for (RelayMeter meter : registered) {
                for (String suffix : SERIES_SUFFIXES) {
                    names.add(meter.prometheusName() + suffix);
                }
            }
            Set<String> scraped = new TreeSet<>();
            for (PrometheusScrape.Sample sample : PrometheusScrape.of(relay.uri()).samples()) {
                if (sample.name().startsWith("relay")) {
                    scraped.add(sample.name());
                }
            }
            assertEquals(Set.of(), scraped.stream().filter(n -> !names.contains(n)).collect(Collectors.toSet()),
                    "series under a name the catalogue does not give");
            for (RelayMeter meter : registered) {
                String series = meter.prometheusName() + (meter.kind() == Meter.Type.TIMER ? "_count" : "");
                assertTrue(scraped.contains(series), series + " scraped: " + scraped);
            }
        }
    }
}
