package chunkrelay.chunk;

public record ClientSdk(String name, String version) {
}
