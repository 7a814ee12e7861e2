package chunkrelay.translate;

import chunkrelay.chunk.primitive.IndexedSet;
import com.google.protobuf.ByteString;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.profiles.v1development.Function;
import io.opentelemetry.proto.profiles.v1development.KeyValueAndUnit;
import io.opentelemetry.proto.profiles.v1development.Link;
import io.opentelemetry.proto.profiles.v1development.Location;
import io.opentelemetry.proto.profiles.v1development.Mapping;
import io.opentelemetry.proto.profiles.v1development.ProfilesDictionary;
import io.opentelemetry.proto.profiles.v1development.Stack;

/**
 * Builds the {@link ProfilesDictionary} shared by a request: one {@link IndexedSet} per table,
 * each seeded with its zero value at index 0 and deduplicated by value. Callers add an item only
 * when they are about to reference it, so the tables hold no orphans.
 *
 * <p>Not thread-safe: one builder per request.
 */
public final class ProfilesDictionaryBuilder {
    /** The link zero value with ids of the lengths strict codecs expect (16 and 8 bytes). */
    static final Link ZERO_LINK = Link.newBuilder()
            .setTraceId(ByteString.copyFrom(new byte[16]))
            .setSpanId(ByteString.copyFrom(new byte[8]))
            .build();

    private final IndexedSet<String> strings = IndexedSet.startingWith("");
    private final IndexedSet<Function> functions = IndexedSet.startingWith(Function.getDefaultInstance());
    private final IndexedSet<Location> locations = IndexedSet.startingWith(Location.getDefaultInstance());
    private final IndexedSet<Stack> stacks = IndexedSet.startingWith(Stack.getDefaultInstance());
    private final IndexedSet<KeyValueAndUnit> attributes =
            IndexedSet.startingWith(KeyValueAndUnit.getDefaultInstance());
    private final IndexedSet<Link> links = IndexedSet.startingWith(ZERO_LINK);
    private final IndexedSet<Mapping> mappings = IndexedSet.startingWith(Mapping.getDefaultInstance());

    /** Index of {@code value} in the string table; null and "" are index 0. */
    public int string(String value) {
        return value == null ? 0 : strings.indexOf(value);
    }

    public int function(Function function) {
        return functions.indexOf(function);
    }

    public int location(Location location) {
        return locations.indexOf(location);
    }

    public int stack(Stack stack) {
        return stacks.indexOf(stack);
    }

    public int mapping(Mapping mapping) {
        return mappings.indexOf(mapping);
    }

    /** Index of a link; its ids must be 16 and 8 bytes, as the collector rejects any other length. */
    public int link(Link link) {
        if (link.getTraceId().size() != 16 || link.getSpanId().size() != 8) {
            throw new IllegalArgumentException("link ids must be 16 and 8 bytes, got "
                    + link.getTraceId().size() + " and " + link.getSpanId().size());
        }
        return links.indexOf(link);
    }

    /** Index of the attribute {@code key = value} with an optional UCUM unit (null for none). */
    public int attribute(String key, AnyValue value, String unit) {
        return attributes.indexOf(KeyValueAndUnit.newBuilder()
                .setKeyStrindex(string(key))
                .setValue(value)
                .setUnitStrindex(string(unit))
                .build());
    }

    public int attribute(String key, String value) {
        return attribute(key, AnyValue.newBuilder().setStringValue(value).build(), null);
    }

    public int attribute(String key, long value) {
        return attribute(key, AnyValue.newBuilder().setIntValue(value).build(), null);
    }

    public int attribute(String key, boolean value) {
        return attribute(key, AnyValue.newBuilder().setBoolValue(value).build(), null);
    }

    public ProfilesDictionary build() {
        return ProfilesDictionary.newBuilder()
                .addAllMappingTable(mappings.values())
                .addAllLocationTable(locations.values())
                .addAllFunctionTable(functions.values())
                .addAllLinkTable(links.values())
                .addAllStringTable(strings.values())
                .addAllAttributeTable(attributes.values())
                .addAllStackTable(stacks.values())
                .build();
    }
}
