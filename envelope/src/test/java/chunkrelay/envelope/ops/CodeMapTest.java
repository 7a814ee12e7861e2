package chunkrelay.envelope.ops;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The code map of {@code docs/how-it-works.md} holds: it lists every package of the application once, every
 * reference from one package's sources to another's points down its table, and each package's package-info names
 * the packages its sources use.
 */
class CodeMapTest {
    private static final Path ROOT = ConfigurationDocsTest.repositoryRoot();
    private static final Path SOURCES = ROOT.resolve("envelope/src/main/java/chunkrelay/envelope");
    private static final Pattern ROW = Pattern.compile("^\\| `envelope(?:\\.(\\w+))?` \\|", Pattern.MULTILINE);
    private static final Pattern REFERENCE = Pattern.compile("chunkrelay\\.envelope\\.(\\w+)\\.[A-Z]");
    private static final Pattern ROOT_REFERENCE = Pattern.compile("chunkrelay\\.envelope\\.[A-Z]");
    /** A package-info's sentence naming the packages it uses, up to its full stop. */
    private static final Pattern USES = Pattern.compile("\\bUses\\s([^.]*)\\.");
    private static final Pattern CODE = Pattern.compile("\\{@code (\\w+)}");

    @Test
    void theCodeMapListsEveryPackageOnce() throws IOException {
        List<String> listed = listedPackages();
        assertEquals(new TreeSet<>(listed).size(), listed.size(), "listed twice: " + listed);
        assertEquals(actualPackages(), new TreeSet<>(listed));
    }

    @Test
    void everyDependencyBetweenPackagesPointsDownTheCodeMap() throws IOException {
        List<String> listed = listedPackages();
        List<String> upward = new ArrayList<>();
        try (Stream<Path> files = Files.walk(SOURCES)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                String from = packageOf(file);
                for (String to : usedBy(file)) {
                    if (listed.indexOf(to) <= listed.indexOf(from)) {
                        upward.add(SOURCES.relativize(file) + " uses envelope." + to);
                    }
                }
            }
        }
        assertEquals(List.of(), upward, "references that point up the code map");
        assertTrue(listed.size() > 10, "the table was read: " + listed);
    }

    @Test
    void everyPackageInfoNamesThePackagesItsSourcesUse() throws IOException {
        Map<String, Set<String>> used = new TreeMap<>();
        try (Stream<Path> files = Files.walk(SOURCES)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                used.computeIfAbsent(packageOf(file), p -> new TreeSet<>()).addAll(usedBy(file));
            }
        }
        List<String> wrong = new ArrayList<>();
        used.forEach((from, packages) -> {
            Set<String> said = saidToUse(from);
            if (!said.equals(packages)) {
                wrong.add((from.isEmpty() ? "envelope" : from) + " says it uses " + said + ", its sources use "
                        + packages);
            }
        });
        assertEquals(List.of(), wrong, "package-info Uses sentences that differ from the sources");
        assertTrue(used.size() > 10, "the sources were read: " + used.keySet());
    }

    /** The other packages of the relay that {@code file} refers to, {@code ""} for the top-level package. */
    private static Set<String> usedBy(Path file) throws IOException {
        String from = packageOf(file);
        String source = Files.readString(file);
        Set<String> used = new TreeSet<>();
        Matcher reference = REFERENCE.matcher(source);
        while (reference.find()) {
            used.add(reference.group(1));
        }
        if (ROOT_REFERENCE.matcher(source).find()) {
            used.add("");
        }
        used.remove(from);
        return used;
    }

    /** The packages named in the one "Uses ..." sentence of {@code pkg}'s package-info; empty for "Uses no other". */
    private static Set<String> saidToUse(String pkg) {
        Path info = SOURCES.resolve(pkg.replace('.', '/')).resolve("package-info.java");
        String text;
        try {
            text = Files.readString(info);
        } catch (IOException e) {
            throw new AssertionError("no " + SOURCES.relativize(info) + " saying which packages it uses", e);
        }
        Matcher uses = USES.matcher(text);
        assertTrue(uses.find(), SOURCES.relativize(info) + " has no \"Uses ...\" sentence");
        String sentence = uses.group(1);
        assertFalse(uses.find(), SOURCES.relativize(info) + " has more than one \"Uses ...\" sentence");
        Set<String> named = new TreeSet<>();
        Matcher code = CODE.matcher(sentence);
        while (code.find()) {
            named.add(code.group(1));
        }
        return named;
    }

    /** The packages in the table's order, {@code ""} for the top-level package. */
    private static List<String> listedPackages() throws IOException {
        String page = Files.readString(ROOT.resolve("docs/how-it-works.md"));
        String map = page.substring(page.indexOf("## Code map"));
        List<String> listed = new ArrayList<>();
        Matcher row = ROW.matcher(map);
        while (row.find()) {
            listed.add(row.group(1) == null ? "" : row.group(1));
        }
        return listed;
    }

    private static Set<String> actualPackages() throws IOException {
        Set<String> packages = new TreeSet<>();
        try (Stream<Path> files = Files.walk(SOURCES)) {
            files.filter(f -> f.toString().endsWith(".java")).forEach(f -> packages.add(packageOf(f)));
        }
        return packages;
    }

    private static String packageOf(Path file) {
        Path folder = SOURCES.relativize(file.getParent());
        return folder.toString().replace('/', '.');
    }
}
