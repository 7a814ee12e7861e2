package chunkrelay.envelope.upstream;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the relay itself dropped, per key, until the next report: "the party that drops an item reports it", so the
 * upstream's stats stay right. Cached-limit drops are {@code rate_limited_events} with the limit's reason code;
 * queue overflow and expiry are {@code discarded_events}. Items the upstream refused with 429 are never reported.
 */
final class ClientReports {
    private static final ObjectMapper JSON = new ObjectMapper();

    private record Sender(long projectId, String publicKey) {
    }

    private record Drop(boolean rateLimited, String reason, String category) {
    }

    private final Map<Sender, Map<Drop, LongAdder>> pending = new ConcurrentHashMap<>();

    void rateLimited(long projectId, String publicKey, String reasonCode, String category, long quantity) {
        add(new Sender(projectId, publicKey), new Drop(true, reasonCode, category), quantity);
    }

    void discarded(long projectId, String publicKey, String reason, String category, long quantity) {
        add(new Sender(projectId, publicKey), new Drop(false, reason, category), quantity);
    }

    private void add(Sender sender, Drop drop, long quantity) {
        pending.computeIfAbsent(sender, s -> new ConcurrentHashMap<>())
                .computeIfAbsent(drop, d -> new LongAdder()).add(quantity);
    }

    /** The reports due, one envelope per key, each with one {@code client_report} item; what they hold is taken. */
    List<UpstreamEnvelope> drain(Instant now) {
        List<UpstreamEnvelope> reports = new ArrayList<>();
        for (Sender sender : List.copyOf(pending.keySet())) {
            Map<Drop, LongAdder> drops = pending.remove(sender);
            if (drops == null || drops.isEmpty()) {
                continue;
            }
            ObjectNode report = JSON.createObjectNode().put("timestamp", now.getEpochSecond());
            ArrayNode discarded = report.putArray("discarded_events");
            ArrayNode rateLimited = report.putArray("rate_limited_events");
            drops.forEach((drop, count) -> (drop.rateLimited() ? rateLimited : discarded).addObject()
                    .put("reason", drop.reason()).put("category", drop.category()).put("quantity", count.sum()));
            byte[] payload = report.toString().getBytes(StandardCharsets.UTF_8);
            byte[] itemHeader = JSON.createObjectNode().put("type", "client_report").put("length", payload.length)
                    .toString().getBytes(StandardCharsets.UTF_8);
            ObjectNode header = JSON.createObjectNode().put("sent_at", now.toString());
            reports.add(new UpstreamEnvelope(sender.projectId(), sender.publicKey(), "chunk-relay", header,
                    List.of(new ForwardedItem("client_report", itemHeader, payload)), now, null, null, null));
        }
        return reports;
    }
}
