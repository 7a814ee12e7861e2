package chunkrelay.translate.export;

import java.util.ArrayList;
import java.util.List;

/** A listener that keeps what it was told, in order, as the application's archive markers would. */
final class RecordingListener implements DeliveryListener {

    record Event(String kind, String key, DeliveryResult result, String reason) {
    }

    private final List<Event> events = new ArrayList<>();

    @Override
    public synchronized void delivered(String key, DeliveryResult result) {
        events.add(new Event("delivered", key, result, ""));
    }

    @Override
    public synchronized void failed(String key, DeliveryResult result) {
        events.add(new Event("failed", key, result, result.reason()));
    }

    @Override
    public synchronized void dropped(String key, String reason) {
        events.add(new Event("dropped", key, null, reason));
    }

    synchronized List<Event> events() {
        return List.copyOf(events);
    }

    synchronized List<String> keys(String kind) {
        return events.stream().filter(event -> event.kind().equals(kind)).map(Event::key).sorted().toList();
    }
}
