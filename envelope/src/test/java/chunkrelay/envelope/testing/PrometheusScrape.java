package chunkrelay.envelope.testing;

import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** One read of a relay's {@code GET /prometheus}, parsed into samples. */
public final class PrometheusScrape {
    private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)})?\\s+(\\S+)$");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

    public record Sample(String name, Map<String, String> labels, double value) {
    }

    private final List<Sample> samples;

    private PrometheusScrape(List<Sample> samples) {
        this.samples = samples;
    }

    public static PrometheusScrape of(URI server) {
        RelayClient.Answer response = new RelayClient(server).get("/prometheus");
        if (response.status() != 200) {
            throw new IllegalStateException("GET /prometheus answered " + response.status());
        }
        List<Sample> samples = new ArrayList<>();
        for (String line : response.raw().split("\n")) {
            Matcher m = SAMPLE.matcher(line.trim());
            if (line.startsWith("#") || !m.matches()) {
                continue;
            }
            Map<String, String> labels = new LinkedHashMap<>();
            if (m.group(2) != null) {
                Matcher l = LABEL.matcher(m.group(2));
                while (l.find()) {
                    labels.put(l.group(1), l.group(2));
                }
            }
            samples.add(new Sample(m.group(1), labels, Double.parseDouble(m.group(3))));
        }
        return new PrometheusScrape(samples);
    }

    /**
     * The sum of the samples named {@code name} whose labels include {@code labels} (name, value pairs). A series
     * that is not there fails the test: a renamed or missing meter must not read as zero.
     */
    public double value(String name, String... labels) {
        List<Sample> found = matching(name, labels);
        if (found.isEmpty()) {
            throw new AssertionError("no series " + name + " " + List.of(labels) + " in the scrape");
        }
        return found.stream().mapToDouble(Sample::value).sum();
    }

    /** Like {@link #value}, but 0 for a series not created yet: for a "before" reading of a meter made on use. */
    public double valueOrZeroBeforeFirstUse(String name, String... labels) {
        return has(name, labels) ? value(name, labels) : 0;
    }

    public List<Sample> samples() {
        return samples;
    }

    public boolean has(String name, String... labels) {
        return !matching(name, labels).isEmpty();
    }

    /** label value to sample value, for the samples named {@code name}. */
    public Map<String, Double> byLabel(String name, String label) {
        Map<String, Double> values = new java.util.TreeMap<>();
        for (Sample sample : samples) {
            if (sample.name().equals(name) && sample.labels().containsKey(label)) {
                values.merge(sample.labels().get(label), sample.value(), Double::sum);
            }
        }
        return values;
    }

    private List<Sample> matching(String name, String... labels) {
        List<Sample> found = new ArrayList<>();
        for (Sample sample : samples) {
            if (!sample.name().equals(name)) {
                continue;
            }
            boolean all = true;
            for (int i = 0; i < labels.length; i += 2) {
                all &= labels[i + 1].equals(sample.labels().get(labels[i]));
            }
            if (all) {
                found.add(sample);
            }
        }
        return found;
    }
}
