package chunkrelay.envelope.ops;

import chunkrelay.envelope.telemetry.MeterTag;
import chunkrelay.envelope.telemetry.RelayMeter;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The metric table of {@code docs/deployment.md} is the catalogue's ({@link RelayMeter}): one row per meter, with
 * its Prometheus name, kind and tags (their values where the catalogue fixes them), and nothing else; every
 * {@code relay_} metric any page or manifest names is one of the catalogue's, with tags and values it declares.
 */
class MetricsDocsTest {
    private static final Path ROOT = ConfigurationDocsTest.repositoryRoot();
    private static final Pattern ROW = Pattern.compile("^\\| `(relay_\\w+)` \\| (\\w+) \\|([^|]*)\\|",
            Pattern.MULTILINE);
    private static final Pattern NAMED = Pattern.compile("\\b(relay_[a-z_]+)(?:\\{([^}]*)})?");
    private static final List<String> SERIES_SUFFIXES = List.of("", "_bucket", "_count", "_sum", "_max");

    @Test
    void theMetricTableListsEveryMeterOfTheCatalogueWithItsKindAndTags() throws IOException {
        Map<String, List<String>> rows = new LinkedHashMap<>();
        List<String> twice = new ArrayList<>();
        Matcher row = ROW.matcher(metricsSection());
        while (row.find()) {
            if (rows.put(row.group(1), List.of(row.group(2), row.group(3).trim())) != null) {
                twice.add(row.group(1));
            }
        }
        assertEquals(List.of(), twice, "rows listed twice");
        Map<String, List<String>> declared = new LinkedHashMap<>();
        for (RelayMeter meter : RelayMeter.values()) {
            declared.put(meter.prometheusName(),
                    List.of(meter.kind().name().toLowerCase(Locale.ROOT), tagsCell(meter)));
        }
        assertEquals(declared, rows);
    }

    @Test
    void everyRelayMetricThePagesAndManifestsNameIsInTheCatalogueWithTagsItDeclares() throws IOException {
        Map<String, RelayMeter> byName = new LinkedHashMap<>();
        for (RelayMeter meter : RelayMeter.values()) {
            for (String suffix : SERIES_SUFFIXES) {
                byName.put(meter.prometheusName() + suffix, meter);
            }
        }
        List<String> unknown = new ArrayList<>();
        int named = 0;
        for (Path file : pagesAndManifests()) {
            Matcher mention = NAMED.matcher(Files.readString(file));
            while (mention.find()) {
                named++;
                RelayMeter meter = byName.get(mention.group(1));
                if (meter == null) {
                    unknown.add(ROOT.relativize(file) + ": " + mention.group(1));
                } else if (mention.group(2) != null && !declares(meter, mention.group(2))) {
                    unknown.add(ROOT.relativize(file) + ": " + mention.group());
                }
            }
        }
        assertEquals(List.of(), unknown, "metrics or tags named in the docs that the catalogue does not declare");
        assertTrue(named > RelayMeter.values().length, "the pages were read: " + named);
    }

    /** The tags cell as the table writes it: {@code `key`: value, value; `key`}. */
    private static String tagsCell(RelayMeter meter) {
        return meter.tags().stream()
                .map(tag -> "`" + tag.key() + "`" + (tag.fixed() ? ": " + String.join(", ", tag.values()) : ""))
                .collect(Collectors.joining("; "));
    }

    /** Whether {@code key=a|b,other} in prose names only tags of the meter, and only values it declares. */
    private static boolean declares(RelayMeter meter, String tags) {
        for (String tag : tags.split(",")) {
            String[] keyValues = tag.trim().split("=", 2);
            MeterTag declared = meter.tags().stream().filter(t -> t.key().equals(keyValues[0])).findFirst()
                    .orElse(null);
            if (declared == null) {
                return false;
            }
            if (keyValues.length == 2 && declared.fixed()) {
                List<String> values = Arrays.stream(keyValues[1].split("\\|")).map(v -> v.replace("\"", "")).toList();
                if (!declared.values().containsAll(values)) {
                    return false;
                }
            }
        }
        return true;
    }

    private static String metricsSection() throws IOException {
        String page = Files.readString(ROOT.resolve("docs/deployment.md"));
        String section = page.substring(page.indexOf("### Metrics\n"));
        int next = section.indexOf("\n#", "### Metrics".length());
        return next < 0 ? section : section.substring(0, next);
    }

    private static List<Path> pagesAndManifests() throws IOException {
        List<Path> files = new ArrayList<>(List.of(ROOT.resolve("README.md")));
        for (String folder : List.of("docs", "deploy")) {
            try (Stream<Path> walk = Files.walk(ROOT.resolve(folder))) {
                walk.filter(Files::isRegularFile).filter(f -> !f.toString().endsWith(".png")).forEach(files::add);
            }
        }
        return new ArrayList<>(new TreeSet<>(files));
    }
}
