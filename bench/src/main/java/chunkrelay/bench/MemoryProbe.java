package chunkrelay.bench;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/** The smallest -Xmx, of a few candidates, at which the synthetic 50 MiB chunk still goes through. */
final class MemoryProbe {
    static final String AUTH = "Sentry sentry_version=7,sentry_client=bench/1.0,sentry_key=c0ffee5e1ec7ab1e5a11ab1e0b5e55ed";

    /** The bisection's outcome: every -Xmx tried (in MiB) and whether the chunk came through. */
    record Bisection(Map<Integer, Boolean> tried) {
        /** The smallest passing -Xmx in MiB, or -1 when none of the candidates passed. */
        int smallestPassing() {
            return tried.entrySet().stream().filter(Map.Entry::getValue).mapToInt(Map.Entry::getKey).min().orElse(-1);
        }
    }

    private MemoryProbe() {
    }

    /** Binary search for the first passing candidate, assuming a larger heap never fails where a smaller passed. */
    static Bisection bisect(int[] candidatesMib, Predicate<Integer> passes) {
        Map<Integer, Boolean> tried = new LinkedHashMap<>();
        int lo = 0;
        int hi = candidatesMib.length - 1;
        while (lo <= hi) {
            int mid = (lo + hi) / 2;
            boolean ok = passes.test(candidatesMib[mid]);
            tried.put(candidatesMib[mid], ok);
            if (ok) {
                hi = mid - 1;
            } else {
                lo = mid + 1;
            }
        }
        return new Bisection(tried);
    }

    /**
     * What the relay's shaded jar at this heap answers to an envelope holding the 50 MiB chunk: {@code "200"} when
     * it answered 200 and archived the chunk, else the status (with the body's detail), or what broke the exchange.
     */
    static String relayAnswer(Path jar, int heapMib, Path workDir, byte[] envelope) {
        try (RelayProcess relay = RelayProcess.start(jar, heapMib + "m", workDir.resolve("xmx-" + heapMib))) {
            HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            HttpResponse<String> response = client.send(HttpRequest.newBuilder(relay.base().resolve("/api/1/envelope/"))
                    .header("X-Sentry-Auth", AUTH).header("Content-Type", "application/x-sentry-envelope")
                    .timeout(Duration.ofMinutes(2)).POST(HttpRequest.BodyPublishers.ofByteArray(envelope)).build(),
                    HttpResponse.BodyHandlers.ofString());
            boolean archived = response.statusCode() == 200 && relay.awaitArchived(SyntheticChunk.CHUNK_ID,
                    RelayProcess.LINK_WINDOW.plusSeconds(30));
            String answer = response.statusCode() == 200 && archived ? "200"
                    : response.statusCode() + (archived ? "" : " not archived") + " " + abbreviate(response.body());
            if (!relay.alive()) {
                answer += " (relay died)";
            }
            System.err.printf("  relay -Xmx%dm: %s%n", heapMib, answer);
            return answer;
        } catch (IOException | RuntimeException e) {
            System.err.printf("  relay -Xmx%dm: %s%n", heapMib, e);
            return "no answer: " + e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** A child JVM at this heap runs the 50 MiB chunk through parse, normalise, translate and serialise. */
    static boolean chunkPathFits(int heapMib) {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx" + heapMib + "m", "-XX:+ExitOnOutOfMemoryError",
                "-cp", System.getProperty("java.class.path"), ChunkPathProbe.class.getName()));
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (!process.waitFor(5, TimeUnit.MINUTES)) {
                process.destroyForcibly();
                return false;
            }
            boolean ok = process.exitValue() == 0;
            System.err.printf("  chunk path -Xmx%dm: exit %d %s%n", heapMib, process.exitValue(), abbreviate(output));
            return ok;
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** An envelope holding one profile_chunk item: the synthetic chunk, its length in the item header. */
    static byte[] envelopeWith(byte[] chunk) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(chunk.length + 512);
        byte[] headers = ("{\"event_id\":\"9ec79c33ec9942ab8353589fcb2e04dc\",\"sent_at\":\"2026-11-22T00:00:00Z\"}\n"
                + "{\"type\":\"profile_chunk\",\"platform\":\"python\",\"length\":" + chunk.length + "}\n")
                .getBytes(StandardCharsets.UTF_8);
        out.writeBytes(headers);
        out.writeBytes(chunk);
        out.write('\n');
        return out.toByteArray();
    }

    private static String abbreviate(String text) {
        String line = text.replace('\n', ' ');
        return line.length() > 160 ? line.substring(0, 160) + "..." : line;
    }
}
