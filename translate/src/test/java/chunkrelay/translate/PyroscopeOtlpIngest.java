package chunkrelay.translate;

import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.profiles.v1development.KeyValueAndUnit;
import io.opentelemetry.proto.profiles.v1development.Line;
import io.opentelemetry.proto.profiles.v1development.Location;
import io.opentelemetry.proto.profiles.v1development.Profile;
import io.opentelemetry.proto.profiles.v1development.ProfilesDictionary;
import io.opentelemetry.proto.profiles.v1development.ResourceProfiles;
import io.opentelemetry.proto.profiles.v1development.Sample;
import io.opentelemetry.proto.profiles.v1development.ScopeProfiles;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Reads an OTLP profiles request as Grafana Pyroscope's OTLP ingest reads it, each rule written from its code and
 * citing it (grafana/pyroscope at 3fe6a457, 2026-08-21; file and line). It stands in for Pyroscope, which is not built
 * here: what comes out is the series Pyroscope would store (their labels and pprof samples) or the error it would
 * answer with.
 *
 * <p>Not modelled: what Pyroscope does after validation (relabelling rules, which are empty by default; symbolisation;
 * the pprof normalisation's merge of equal samples, which keeps their sum).
 */
final class PyroscopeOtlpIngest {
    /** {@code pkg/validation/limits.go:191}: {@code validation.max-profile-stacktrace-samples}. */
    static final int MAX_SAMPLES = 16_000;
    /** {@code pkg/validation/limits.go:164}: {@code validation.max-label-names-per-series}. */
    static final int MAX_LABEL_NAMES = 30;
    /** {@code pkg/validation/limits.go:218} and {@code :215}: reject older than 1 h, newer than 10 min. */
    static final long REJECT_OLDER_NANOS = 3_600_000_000_000L;
    static final long REJECT_NEWER_NANOS = 600_000_000_000L;
    /** Prometheus' legacy label name, before {@code validate.go:247-270} replaces dots with underscores. */
    private static final Pattern LABEL_NAME = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_.]*");

    /** One pprof sample of a series: its leaf-first function names (null for an address-only frame) and value. */
    record PprofSample(List<String> functions, long value, Map<String, String> labels) {
    }

    /** A series as the distributor stores it: its labels (names sanitised) and its samples. */
    record Series(SortedMap<String, String> labels, String sampleType, List<PprofSample> samples) {
        String name() {
            return labels.get("__name__");
        }
    }

    /** Thrown with the answer Pyroscope gives: the rule that refused the request. */
    static final class Refused extends RuntimeException {
        Refused(String rule) {
            super(rule);
        }
    }

    private PyroscopeOtlpIngest() {
    }

    /**
     * The series a request becomes, received at {@code nowNanos}.
     *
     * @throws Refused when Pyroscope answers 400 (or 500 for a conversion error), naming the rule
     */
    static List<Series> ingest(ExportProfilesServiceRequest request, long nowNanos) {
        ProfilesDictionary dictionary = request.getDictionary();
        List<Series> series = new ArrayList<>();
        for (ResourceProfiles resource : request.getResourceProfilesList()) {
            String serviceName = serviceName(resource.getResource().getAttributesList());
            for (ScopeProfiles scope : resource.getScopeProfilesList()) {
                for (Profile profile : scope.getProfilesList()) {
                    convert(profile, dictionary, nowNanos, seriesLabels(resource, scope, serviceName), series);
                }
            }
        }
        return series;
    }

    /**
     * {@code ingest_handler.go:284-297}: {@code __delta__=false}, {@code __otel__=true}, then each resource and scope
     * attribute with a string or int value ({@code appendAttributesUnique}, {@code :361-376};
     * {@code stringValueFromAnyValue}, {@code :379-408}), then {@code service_name}.
     */
    private static Map<String, String> seriesLabels(ResourceProfiles resource, ScopeProfiles scope, String service) {
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put("__delta__", "false");
        labels.put("__otel__", "true");
        for (List<KeyValue> attributes : List.of(resource.getResource().getAttributesList(),
                scope.getScope().getAttributesList())) {
            for (KeyValue attribute : attributes) {
                String value = stringValue(attribute.getValue());
                if (!labels.containsKey(attribute.getKey()) && !value.isEmpty()) {
                    labels.put(attribute.getKey(), value);
                }
            }
        }
        labels.put("service_name", service);
        return labels;
    }

    /** {@code ingest_handler.go:329-345}: a string {@code service.name}, else {@code unknown_service}. */
    private static String serviceName(List<KeyValue> attributes) {
        for (KeyValue attribute : attributes) {
            if (attribute.getKey().equals("service.name") && !stringValue(attribute.getValue()).isEmpty()) {
                return stringValue(attribute.getValue());
            }
        }
        return "unknown_service";
    }

    /** {@code ingest_handler.go:379-408}: string and int values; a one-element array of them; else "". */
    private static String stringValue(AnyValue value) {
        return switch (value.getValueCase()) {
            case STRING_VALUE -> value.getStringValue();
            case INT_VALUE -> Long.toString(value.getIntValue());
            case ARRAY_VALUE -> value.getArrayValue().getValuesCount() == 1
                    ? stringValue(value.getArrayValue().getValues(0)) : "";
            default -> "";
        };
    }

    private static void convert(Profile profile, ProfilesDictionary dictionary, long nowNanos,
                                Map<String, String> labels, List<Series> out) {
        String sampleType = dictionary.getStringTable(profile.getSampleType().getTypeStrindex()) + ":"
                + dictionary.getStringTable(profile.getSampleType().getUnitStrindex());
        // convert.go:183-197: the period type counts only with a non-zero period
        String periodType = profile.getPeriod() == 0 ? ":" : dictionary.getStringTable(
                profile.getPeriodType().getTypeStrindex()) + ":" + dictionary.getStringTable(
                profile.getPeriodType().getUnitStrindex());
        String profileType = sampleType + ":" + periodType;
        // convert.go:136-147: samples:count over cpu:nanoseconds is process_cpu, each value × the period
        boolean processCpu = profileType.equals("samples:count:cpu:nanoseconds");
        // convert.go:155-164: any other type is named after its period type (parts[2]); an empty one is refused
        // (validate.go:141-143, an invalid metric name)
        String name = processCpu ? "process_cpu" : profileType.split(":", -1)[2];
        if (name.isEmpty()) {
            throw new Refused("validate.go:141 invalid metric name: empty profile name");
        }
        List<PprofSample> samples = new ArrayList<>();
        for (Sample sample : profile.getSamplesList()) {
            samples.add(sample(sample, dictionary, processCpu ? profile.getPeriod() : 1));
        }
        // validate.go:331 (window of limits.go:215-218): the profile's time within [now - 1h, now + 10m]
        long time = profile.getTimeUnixNano();
        if (time > 0 && (time <= nowNanos - REJECT_OLDER_NANOS || time >= nowNanos + REJECT_NEWER_NANOS)) {
            throw new Refused("validate.go:331 profile time outside the ingestion window");
        }
        // validate.go:341 (limits.go:191)
        if (samples.size() > MAX_SAMPLES) {
            throw new Refused("validate.go:341 " + samples.size() + " samples, more than " + MAX_SAMPLES);
        }
        // validate.go:389: a sample type must not contain '-'
        if ((processCpu ? "cpu" : sampleType).contains("-")) {
            throw new Refused("validate.go:389 sample type contains -");
        }
        // pprof_split.go:38 and :105-120: samples split into series by their string labels (but trace and span
        // ids), each label joining the series labels unless the series has it already
        Map<Map<String, String>, List<PprofSample>> bySampleLabels = new LinkedHashMap<>();
        for (PprofSample sample : samples) {
            Map<String, String> sampleLabels = new TreeMap<>(sample.labels());
            sampleLabels.remove("span_id");
            sampleLabels.remove("trace_id");
            bySampleLabels.computeIfAbsent(sampleLabels, k -> new ArrayList<>()).add(sample);
        }
        for (Map.Entry<Map<String, String>, List<PprofSample>> group : bySampleLabels.entrySet()) {
            Map<String, String> seriesLabels = new LinkedHashMap<>(labels);
            seriesLabels.put("__name__", name);
            group.getKey().forEach(seriesLabels::putIfAbsent);
            out.add(new Series(validLabels(seriesLabels), processCpu ? "cpu:nanoseconds" : sampleType,
                    group.getValue()));
        }
    }

    /**
     * {@code convert.go:310-341}: values as sent, else the number of timestamps; more than one value is refused.
     * {@code convert.go:394-414}: sample attributes with string or int values become labels ({@code service.name}
     * aside); {@code :416-431}: a non-zero link index becomes {@code span_id} and {@code trace_id}.
     */
    private static PprofSample sample(Sample sample, ProfilesDictionary dictionary, long scale) {
        long value;
        if (sample.getValuesCount() > 0) {
            if (sample.getValuesCount() != 1) {
                throw new Refused("convert.go:340 sample values length mismatch");
            }
            value = sample.getValues(0);
        } else if (sample.getTimestampsUnixNanoCount() > 0) {
            value = sample.getTimestampsUnixNanoCount();
        } else {
            throw new Refused("convert.go:322 sample value is required");
        }
        Map<String, String> labels = new TreeMap<>();
        for (int index : sample.getAttributeIndicesList()) {
            KeyValueAndUnit attribute = dictionary.getAttributeTable(index);
            String key = dictionary.getStringTable(attribute.getKeyStrindex());
            String text = stringValue(attribute.getValue());
            if (!key.equals("service.name") && !text.isEmpty()) {
                labels.put(key, text);
            }
        }
        if (sample.getLinkIndex() != 0) {
            var link = dictionary.getLinkTable(sample.getLinkIndex());
            labels.put("span_id", java.util.HexFormat.of().formatHex(link.getSpanId().toByteArray()));
            labels.put("trace_id", java.util.HexFormat.of().formatHex(link.getTraceId().toByteArray()));
        }
        List<String> functions = new ArrayList<>();
        for (int locationIndex : dictionary.getStackTable(sample.getStackIndex()).getLocationIndicesList()) {
            Location location = dictionary.getLocationTable(locationIndex);
            if (location.getLinesCount() == 0) {
                // pprof.go:1483-1486 drops a location with neither lines nor address, and its samples with it
                if (location.getAddress() == 0) {
                    throw new Refused("pprof.go:1483 a location with neither lines nor address drops its sample");
                }
                functions.add(null);
            }
            for (Line line : location.getLinesList()) {
                functions.add(dictionary.getStringTable(
                        dictionary.getFunctionTable(line.getFunctionIndex()).getNameStrindex()));
            }
        }
        return new PprofSample(functions, value * scale, labels);
    }

    /**
     * {@code validate.go:130-200}: at most 30 label names, {@code __name__} a valid metric name, a service name,
     * label names of {@code [a-zA-Z0-9_.]} with dots replaced by underscores, no name twice with two values after
     * that ({@code service.name} and {@code service_name} become one label).
     */
    private static SortedMap<String, String> validLabels(Map<String, String> labels) {
        if (labels.size() > MAX_LABEL_NAMES) {
            throw new Refused("validate.go:137 " + labels.size() + " label names, more than " + MAX_LABEL_NAMES);
        }
        if (labels.getOrDefault("service_name", "").isEmpty()) {
            throw new Refused("validate.go:145 service name is not provided");
        }
        SortedMap<String, String> valid = new TreeMap<>();
        for (Map.Entry<String, String> label : labels.entrySet()) {
            if (!LABEL_NAME.matcher(label.getKey()).matches()) {
                throw new Refused("validate.go:188 invalid label name '" + label.getKey() + "'");
            }
            String sanitised = label.getKey().replace('.', '_');
            String before = valid.put(sanitised, label.getValue());
            if (before != null && !before.equals(label.getValue())) {
                throw new Refused("validate.go:205-240 label " + sanitised + " twice, with two values");
            }
        }
        return valid;
    }
}
