package chunkrelay.chunk;

/** What the SDK said about a thread; both fields optional. */
public record ThreadMetadata(String name, Integer priority) {
}
