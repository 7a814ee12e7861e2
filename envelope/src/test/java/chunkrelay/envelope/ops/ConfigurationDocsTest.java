package chunkrelay.envelope.ops;

import chunkrelay.envelope.Application;
import chunkrelay.envelope.archive.S3StorageConfig;
import chunkrelay.envelope.forward.OtlpConfig;
import chunkrelay.storage.ArchiveSettings;
import chunkrelay.translate.export.OtlpExportSettings;
import io.micronaut.context.annotation.ConfigurationBuilder;
import io.micronaut.context.annotation.ConfigurationInject;
import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.context.annotation.EachProperty;
import io.micronaut.context.annotation.Parameter;
import io.micronaut.context.annotation.Property;
import io.micronaut.context.annotation.Requires;
import io.micronaut.context.annotation.Value;
import io.micronaut.core.naming.NameUtils;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

import java.io.IOException;
import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Executable;
import java.lang.reflect.RecordComponent;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The README and {@code docs/} cannot drift from the code or from each other: every {@code docs/} page is linked
 * from the README, every relative link resolves (anchors included), and the keys of {@code docs/configuration.md}
 * are exactly the {@code relay.*} keys the relay reads, as its compiled classes declare them
 * ({@code @ConfigurationProperties} and their {@code @ConfigurationBuilder}s, {@code @EachProperty}, {@code @Value},
 * {@code @Property}, {@code @Requires(property)}), its {@code micronaut.*} keys are ones the relay's
 * {@code application.yml} sets, and each documented default is the code's ({@link CodeDefaults}).
 */
class ConfigurationDocsTest {
    private static final Path ROOT = repositoryRoot();
    private static final Path README = ROOT.resolve("README.md");
    private static final Path DOCS = ROOT.resolve("docs");
    private static final Path REFERENCE = DOCS.resolve("configuration.md");

    /** Keys the code reads that the reference leaves out on purpose, each with its reason. */
    private static final Map<String, String> UNDOCUMENTED = Map.of(
            "relay.benchmark.discard-endpoint", "the benchmark's floor, not for operators; docs/performance.md says it");

    /** Keys whose documented default is said in words, not as the code's value, each with its reason. */
    private static final Map<String, String> DEFAULTS_IN_WORDS = Map.ofEntries(
            Map.entry("relay.projects.*.keys", "none: no key is configured, so the project takes any well-formed key"),
            Map.entry("relay.projects.*.service-name", "a rule (from the chunk's release), not a value"),
            Map.entry("relay.projects.*.rate-limits.chunks-per-minute", "unlimited: no limit is configured"),
            Map.entry("relay.projects.*.rate-limits.bytes-per-minute", "unlimited: no limit is configured"),
            Map.entry("relay.projects.*.retention", "the value of relay.storage.retention, named by its key"),
            Map.entry("relay.storage.s3.endpoint", "AWS's endpoint of the region, chosen by the AWS SDK"),
            Map.entry("relay.storage.s3.access-key", "the AWS default credentials chain, not a value"),
            Map.entry("relay.storage.s3.secret-key", "the AWS default credentials chain, not a value"),
            Map.entry("relay.otlp.endpoint", "off: an empty endpoint turns forwarding off"),
            Map.entry("relay.otlp.headers.*", "none: a map with no entries"),
            Map.entry("relay.otlp.max-age", "unset: the endpoint has no acceptance window"));

    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
    private static final Pattern HEADING = Pattern.compile("(?m)^#{1,6} (.+)$");
    private static final Pattern FENCE = Pattern.compile("(?ms)^```.*?^```");
    private static final Pattern TICKED = Pattern.compile("`([^`]+)`");
    private static final Pattern PLACEHOLDER = Pattern.compile("<[^>]+>");
    private static final Pattern PROPERTY_REFERENCE = Pattern.compile("\\$\\{([a-z0-9.-]+)");
    private static final Pattern LEADING_VALUE = Pattern.compile("^`([^`]*)`");
    private static final Pattern KEY_MENTION = Pattern.compile("(?<![a-z0-9_./-])relay\\.[a-z0-9<>*.-]*[a-z0-9>*]");

    @Test
    void theReadmeLinksEveryFileUnderDocsAndOnlyFilesThatExist() throws IOException {
        Set<Path> linked = new TreeSet<>();
        for (String target : links(README)) {
            Path file = README.getParent().resolve(target.split("#", 2)[0]).normalize();
            assertTrue(Files.isRegularFile(file), "README.md links " + target + ", which does not exist");
            if (file.startsWith(DOCS)) {
                linked.add(file);
            }
        }
        Set<Path> present = new TreeSet<>();
        try (Stream<Path> files = Files.walk(DOCS)) {
            files.filter(Files::isRegularFile).map(Path::normalize).forEach(present::add);
        }
        assertTrue(present.contains(REFERENCE));
        assertEquals(present, linked, "files under docs/ and the README's links to them");
    }

    @Test
    void everyLinkBetweenTheDocumentsResolvesToAFileAndHeading() throws IOException {
        List<Path> documents = new ArrayList<>(List.of(README));
        documents.addAll(markdownUnderDocs());
        List<String> broken = new ArrayList<>();
        for (Path document : documents) {
            for (String target : links(document)) {
                String[] parts = target.split("#", 2);
                Path file = parts[0].isEmpty() ? document : document.getParent().resolve(parts[0]).normalize();
                if (!Files.isRegularFile(file)) {
                    broken.add(ROOT.relativize(document) + " -> " + target + ": no such file");
                } else if (parts.length == 2 && !anchors(file).contains(parts[1])) {
                    broken.add(ROOT.relativize(document) + " -> " + target + ": no such heading in "
                            + ROOT.relativize(file) + " " + anchors(file));
                }
            }
        }
        assertEquals(List.of(), broken);
    }

    @Test
    void theReferenceDocumentsExactlyTheKeysTheCodeReads() throws Exception {
        Set<String> code = codeKeys();
        Set<String> documented = new TreeSet<>(documentedKeys().keySet());
        documented.removeIf(key -> key.startsWith("micronaut."));
        assertTrue(code.contains("relay.links.window") && code.contains("relay.projects.*.rate-limits.chunks-per-minute")
                && code.contains("relay.otlp.headers.*"),
                "the code's keys were not all found: " + code);

        Set<String> missing = new TreeSet<>(code);
        missing.removeAll(documented);
        missing.removeAll(UNDOCUMENTED.keySet());
        assertEquals(Set.of(), missing, "keys the code reads that docs/configuration.md does not document");

        Set<String> unknown = new TreeSet<>(documented);
        unknown.removeAll(code);
        assertEquals(Set.of(), unknown, "keys docs/configuration.md documents that the code does not read");

        Set<String> leftOut = new TreeSet<>(UNDOCUMENTED.keySet());
        leftOut.removeAll(code);
        assertEquals(Set.of(), leftOut, "left out on purpose, but the code no longer reads them");
    }

    @Test
    void theMicronautKeysOfTheReferenceAreOnesTheApplicationYmlSets() throws IOException {
        Set<String> set = applicationYmlKeys("micronaut");
        Set<String> documented = new TreeSet<>(documentedKeys().keySet());
        documented.removeIf(key -> !key.startsWith("micronaut."));
        assertTrue(documented.contains("micronaut.server.port"), "documented: " + documented);
        Set<String> unknown = new TreeSet<>(documented);
        unknown.removeAll(set);
        assertEquals(Set.of(), unknown, "micronaut keys documented but not set in application.yml");
    }

    @Test
    void everyRelayKeyOfTheApplicationYmlIsOneTheCodeReads() throws Exception {
        Set<String> unknown = applicationYmlKeys("relay");
        assertTrue(unknown.contains("relay.limits.workers"), "application.yml: " + unknown);
        unknown.removeAll(codeKeys());
        assertEquals(Set.of(), unknown, "keys application.yml sets that no class reads");
    }

    @Test
    void eachKeyOfTheReferenceNamesItsEnvironmentVariable() throws IOException {
        for (Map.Entry<String, String> row : documentedKeys().entrySet()) {
            if (row.getKey().endsWith(".*") && !row.getKey().startsWith("relay.projects.")) {
                continue; // a map's entry names (header names) cannot be spelled in environment variables
            }
            String variable = row.getKey().replace("*", "<ID>").toUpperCase(Locale.ROOT).replaceAll("[.-]", "_");
            assertTrue(row.getValue().contains("`" + variable + "`"), row.getKey() + " should name " + variable
                    + " in its env column: " + row.getValue());
        }
    }

    /**
     * A documented default is the code's: its leading {@code `value`} (or the word "empty", for "") is compared with
     * {@link CodeDefaults}; a default said only in words must be listed in {@link #DEFAULTS_IN_WORDS}.
     */
    @Test
    void eachDocumentedDefaultIsTheCodesDefault() throws Exception {
        Map<String, Object> yml = new TreeMap<>();
        yml.putAll(applicationYml("relay"));
        yml.putAll(applicationYml("micronaut"));
        Map<String, String> code = CodeDefaults.of(relayClasses(), ConfigurationDocsTest::prefix, yml);
        code.putAll(CodeDefaults.ofSettings("relay.otlp", properties(OtlpConfig.class).keySet(),
                OtlpExportSettings.builder(URI.create("http://collector:4318")).build(),
                Map.of("maxRequestSize", "maxRequestBytes")));
        code.putAll(CodeDefaults.ofSettings("relay.storage.s3", properties(S3StorageConfig.class).keySet(),
                ArchiveSettings.defaults(), Map.of()));
        assertEquals("5s", code.get("relay.upstream.client-report-interval"), "the code's defaults: " + code);
        List<String> wrong = new ArrayList<>();
        for (Map.Entry<String, String> row : documentedRows(2).entrySet()) {
            String key = row.getKey();
            String cell = row.getValue().trim();
            Matcher ticked = LEADING_VALUE.matcher(cell);
            String documented = ticked.find() ? ticked.group(1) : cell.startsWith("empty") ? "" : null;
            if (DEFAULTS_IN_WORDS.containsKey(key)) {
                continue;
            } else if (documented == null) {
                wrong.add(key + ": its default \"" + cell + "\" has no leading `value` and is not listed in "
                        + "DEFAULTS_IN_WORDS");
            } else if (!code.containsKey(key)) {
                wrong.add(key + ": documented default `" + documented + "`, but the code gives none");
            } else if (!documented.equals(code.get(key))) {
                wrong.add(key + ": documented default `" + documented + "`, the code's is `" + code.get(key) + "`");
            }
        }
        assertEquals(List.of(), wrong, "defaults in docs/configuration.md that are not the code's");
        Set<String> stale = new TreeSet<>(DEFAULTS_IN_WORDS.keySet());
        stale.removeAll(documentedRows(2).keySet());
        assertEquals(Set.of(), stale, "listed as said in words, but not documented");
    }

    @Test
    void everyRelayKeyMentionedInTheDocumentsIsOneTheCodeReads() throws Exception {
        Set<String> code = codeKeys();
        code.addAll(UNDOCUMENTED.keySet());
        List<Path> documents = new ArrayList<>(List.of(README));
        documents.addAll(markdownUnderDocs());
        List<String> unknown = new ArrayList<>();
        for (Path document : documents) {
            Matcher mention = KEY_MENTION.matcher(Files.readString(document));
            while (mention.find()) {
                String key = normalise(mention.group()).replaceAll("\\.\\*$", "");
                if (!code.contains(key) && code.stream().noneMatch(k -> k.startsWith(key + "."))) {
                    unknown.add(ROOT.relativize(document) + ": " + mention.group());
                }
            }
        }
        assertEquals(List.of(), unknown, "mentioned keys the code does not read");
    }

    /**
     * The keys of the relay's compiled classes: the {@link #properties} of its configuration types (under their
     * prefix, {@code *} for an {@code @EachProperty} name or a map's entries) and every property an annotation reads.
     */
    private static Set<String> codeKeys() throws Exception {
        Set<String> keys = new TreeSet<>();
        for (Class<?> type : relayClasses()) {
            String prefix = prefix(type);
            if (prefix != null) {
                properties(type).forEach((name, valueType) -> {
                    String key = prefix + "." + NameUtils.hyphenate(name);
                    keys.add(Map.class.isAssignableFrom(valueType) ? key + ".*" : key);
                });
            }
            List<AnnotatedElement> annotated = new ArrayList<>(List.of(type));
            annotated.addAll(List.of(type.getDeclaredFields()));
            annotated.addAll(List.of(type.getDeclaredMethods()));
            List<Executable> executables = new ArrayList<>(List.of(type.getDeclaredConstructors()));
            executables.addAll(List.of(type.getDeclaredMethods()));
            executables.forEach(e -> annotated.addAll(List.of(e.getParameters())));
            for (AnnotatedElement element : annotated) {
                for (Requires requires : element.getAnnotationsByType(Requires.class)) {
                    if (!requires.property().isEmpty()) {
                        keys.add(requires.property());
                    }
                }
                Value value = element.getAnnotation(Value.class);
                if (value != null) {
                    Matcher reference = PROPERTY_REFERENCE.matcher(value.value());
                    while (reference.find()) {
                        keys.add(reference.group(1));
                    }
                }
                Property property = element.getAnnotation(Property.class);
                if (property != null) {
                    keys.add(property.name());
                }
            }
        }
        return keys;
    }

    /**
     * The properties a configuration type binds, by name, with their types: a record's components (but the
     * {@code @EachProperty} name and nested configuration records, which have keys of their own); a class's
     * {@code @ConfigurationInject} constructor parameters and the setters of its {@code @ConfigurationBuilder} fields,
     * named as Micronaut names them (the method's name after one of the builder's prefixes), but the builder's
     * excludes.
     */
    private static Map<String, Class<?>> properties(Class<?> type) throws NoSuchMethodException {
        Map<String, Class<?>> properties = new TreeMap<>();
        if (type.isRecord()) {
            RecordComponent[] components = type.getRecordComponents();
            java.lang.reflect.Parameter[] parameters = type.getDeclaredConstructor(
                    Stream.of(components).map(RecordComponent::getType).toArray(Class<?>[]::new)).getParameters();
            for (int i = 0; i < components.length; i++) {
                if (!parameters[i].isAnnotationPresent(Parameter.class) && prefix(components[i].getType()) == null) {
                    properties.put(components[i].getName(), components[i].getType());
                }
            }
            return properties;
        }
        java.lang.reflect.Constructor<?> constructor = Stream.of(type.getConstructors())
                .filter(c -> c.isAnnotationPresent(ConfigurationInject.class)).findFirst()
                .orElseThrow(() -> new AssertionError(type + ": this test reads records and classes bound through"
                        + " an @ConfigurationInject constructor and @ConfigurationBuilder fields"));
        for (java.lang.reflect.Parameter parameter : constructor.getParameters()) {
            assertTrue(parameter.isNamePresent(), constructor + " compiled without its parameter names");
            properties.put(parameter.getName(), parameter.getType());
        }
        for (java.lang.reflect.Field field : type.getDeclaredFields()) {
            ConfigurationBuilder builder = field.getAnnotation(ConfigurationBuilder.class);
            if (builder != null) {
                assertEquals("", builder.value(), field + ": this test reads builders without a prefix of their own");
                properties.putAll(setters(field.getType(), List.of(builder.prefixes()), Set.of(builder.excludes())));
            }
        }
        assertFalse(properties.isEmpty(), type + " binds no property this test can see");
        return properties;
    }

    /** The public one-argument methods of {@code type} (not Object's) named with a prefix, by property name. */
    private static Map<String, Class<?>> setters(Class<?> type, List<String> prefixes, Set<String> excludes) {
        Map<String, Class<?>> setters = new TreeMap<>();
        for (java.lang.reflect.Method method : type.getMethods()) {
            for (String prefix : prefixes) {
                String name = method.getName();
                if (method.getParameterCount() == 1 && !java.lang.reflect.Modifier.isStatic(method.getModifiers())
                        && method.getDeclaringClass() != Object.class && name.startsWith(prefix)
                        && name.length() > prefix.length()) {
                    String property = NameUtils.decapitalize(name.substring(prefix.length()));
                    if (!excludes.contains(property)) {
                        setters.put(property, method.getParameterTypes()[0]);
                    }
                }
            }
        }
        return setters;
    }

    /** The full prefix of a configuration type, its enclosing types' prefixes included; null for other types. */
    private static String prefix(Class<?> type) {
        String own;
        if (type.isAnnotationPresent(EachProperty.class)) {
            own = type.getAnnotation(EachProperty.class).value() + ".*";
        } else if (type.isAnnotationPresent(ConfigurationProperties.class)) {
            own = type.getAnnotation(ConfigurationProperties.class).value();
        } else {
            return null;
        }
        String outer = type.getEnclosingClass() == null ? null : prefix(type.getEnclosingClass());
        return outer == null ? own : outer + "." + own;
    }

    /** Every class compiled from the relay's main sources (chunkrelay.envelope and below). */
    private static List<Class<?>> relayClasses() throws IOException, URISyntaxException, ClassNotFoundException {
        Path classes = Path.of(Application.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        assertTrue(Files.isDirectory(classes.resolve("chunkrelay/envelope")), "compiled classes at " + classes);
        List<Class<?>> found = new ArrayList<>();
        List<Path> files;
        try (Stream<Path> walk = Files.walk(classes.resolve("chunkrelay/envelope"))) {
            files = walk.filter(p -> p.toString().endsWith(".class")).toList();
        }
        for (Path file : files) {
            String name = classes.relativize(file).toString().replace(file.getFileSystem().getSeparator(), ".");
            name = name.substring(0, name.length() - ".class".length());
            if (name.contains("$Definition") || name.contains("$Introspection") || name.contains("$Intercepted")
                    || name.endsWith("package-info")) {
                continue; // generated by Micronaut's annotation processor from the classes read here
            }
            found.add(Class.forName(name, false, ConfigurationDocsTest.class.getClassLoader()));
        }
        return found;
    }

    /** The leaf keys under {@code root} of the relay's own application.yml, flattened. */
    private static Set<String> applicationYmlKeys(String root) throws IOException {
        return new TreeSet<>(applicationYml(root).keySet());
    }

    /** The leaves under {@code root} of the relay's own application.yml, by flattened key. */
    private static Map<String, Object> applicationYml(String root) throws IOException {
        Map<String, Object> leaves = new TreeMap<>();
        try (var in = Application.class.getResourceAsStream("/application.yml")) {
            assertNotNull(in);
            Map<String, Object> yaml = new Yaml().load(in);
            flatten(root, yaml.get(root), leaves);
        }
        return leaves;
    }

    @SuppressWarnings("unchecked")
    private static void flatten(String key, Object node, Map<String, Object> leaves) {
        if (node instanceof Map<?, ?> map) {
            ((Map<String, Object>) map).forEach((name, child) -> flatten(key + "." + name, child, leaves));
        } else {
            leaves.put(key, node);
        }
    }

    /** The reference's keys ({@code <id>}, {@code <name>} read as {@code *}) and each one's env column. */
    private static Map<String, String> documentedKeys() throws IOException {
        return documentedRows(3);
    }

    /** The reference's keys and each one's cell of {@code column} (1 key, 2 default, 3 env). */
    private static Map<String, String> documentedRows(int column) throws IOException {
        Map<String, String> keys = new TreeMap<>();
        boolean inTable = false;
        for (String line : Files.readAllLines(REFERENCE)) {
            if (line.startsWith("| key |")) {
                inTable = true;
                assertTrue(line.startsWith("| key | default | env |"), "column order of " + line);
            } else if (!line.startsWith("|")) {
                inTable = false;
            } else if (inTable && !line.startsWith("|---")) {
                String[] cells = line.split("(?<!\\\\)\\|");
                Matcher key = TICKED.matcher(cells[1]);
                assertTrue(key.find(), "a row without a key: " + line);
                String name = normalise(key.group(1));
                assertFalse(key.find(), "one key per row: " + line);
                assertTrue(name.startsWith("relay.") || name.startsWith("micronaut."), "not a key: " + line);
                assertFalse(keys.containsKey(name), name + " is documented twice");
                keys.put(name, cells[column]);
            }
        }
        return keys;
    }

    private static String normalise(String key) {
        return PLACEHOLDER.matcher(key).replaceAll("*");
    }

    private static List<String> links(Path document) throws IOException {
        String text = FENCE.matcher(Files.readString(document)).replaceAll("");
        List<String> targets = new ArrayList<>();
        Matcher link = LINK.matcher(text);
        while (link.find()) {
            String target = link.group(1);
            if (!target.matches("^[a-z]+:.*")) {
                targets.add(target);
            }
        }
        return targets;
    }

    /** The anchors GitHub gives a document's headings. */
    private static Set<String> anchors(Path document) throws IOException {
        Set<String> anchors = new TreeSet<>();
        Map<String, Integer> seen = new LinkedHashMap<>();
        Matcher heading = HEADING.matcher(FENCE.matcher(Files.readString(document)).replaceAll(""));
        while (heading.find()) {
            String slug = heading.group(1).trim().toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N} _-]", "")
                    .replace(' ', '-');
            int repeat = seen.merge(slug, 1, Integer::sum) - 1;
            anchors.add(repeat == 0 ? slug : slug + "-" + repeat);
        }
        return anchors;
    }

    private static List<Path> markdownUnderDocs() throws IOException {
        try (Stream<Path> files = Files.walk(DOCS)) {
            return files.filter(p -> p.toString().endsWith(".md")).sorted().toList();
        }
    }

    static Path repositoryRoot() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !(Files.isDirectory(dir.resolve("docs")) && Files.isRegularFile(dir.resolve("README.md")))) {
            dir = dir.getParent();
        }
        assertNotNull(dir, "no README.md with docs/ above " + Path.of("").toAbsolutePath());
        return dir;
    }
}
