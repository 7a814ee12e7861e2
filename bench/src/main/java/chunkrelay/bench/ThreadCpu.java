package chunkrelay.bench;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * CPU time of another process's threads from /proc, grouped by thread name without its number
 * ({@code ingest-worker-3} counts as {@code ingest-worker}): where a process's CPU goes, JIT compiler and GC threads
 * included, without an agent in it. Linux reports at most 15 characters of a name.
 */
final class ThreadCpu {
    private static final long NANOS_PER_TICK = 10_000_000L;

    /** CPU nanoseconds per thread id, with the thread's group. */
    record Snapshot(Map<String, Long> nanosByThread, Map<String, String> groupByThread) {
        /** CPU nanoseconds spent since {@code earlier}, by group, largest first. */
        Map<String, Long> since(Snapshot earlier) {
            Map<String, Long> byGroup = new HashMap<>();
            nanosByThread.forEach((thread, nanos) -> byGroup.merge(groupByThread.get(thread),
                    nanos - earlier.nanosByThread.getOrDefault(thread, 0L), Long::sum));
            return byGroup.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                    .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue, (a, b) -> a,
                            LinkedHashMap::new));
        }
    }

    private ThreadCpu() {
    }

    static Snapshot of(long pid) {
        Map<String, Long> nanos = new TreeMap<>();
        Map<String, String> groups = new HashMap<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path task : tasks) {
                String stat;
                try {
                    stat = Files.readString(task.resolve("stat"));
                } catch (IOException exited) {
                    continue;
                }
                String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                String thread = task.getFileName().toString();
                nanos.put(thread, (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) * NANOS_PER_TICK);
                groups.put(thread, group(name));
            }
        } catch (IOException e) {
            return new Snapshot(Map.of(), Map.of());
        }
        return new Snapshot(nanos, groups);
    }

    /** The thread's name without its trailing number and separators; compiler and GC threads by their kind. */
    static String group(String name) {
        if (name.startsWith("C2 Compiler") || name.startsWith("C1 Compiler")) {
            return "JIT compiler";
        }
        if (name.startsWith("GC Thread") || name.startsWith("G1 ")) {
            return "GC";
        }
        return name.replaceAll("[-#_ ]*[0-9]+$", "");
    }
}
