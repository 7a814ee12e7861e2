package chunkrelay.translate;

import com.google.protobuf.ByteString;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.profiles.v1development.Function;
import io.opentelemetry.proto.profiles.v1development.KeyValueAndUnit;
import io.opentelemetry.proto.profiles.v1development.Link;
import io.opentelemetry.proto.profiles.v1development.Location;
import io.opentelemetry.proto.profiles.v1development.Mapping;
import io.opentelemetry.proto.profiles.v1development.ProfilesDictionary;
import io.opentelemetry.proto.profiles.v1development.Stack;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class ProfilesDictionaryBuilderTest {

    @Test
    void seedsEveryTableWithItsZeroValue() {
        ProfilesDictionary dictionary = new ProfilesDictionaryBuilder().build();

        assertEquals(List.of(""), dictionary.getStringTableList());
        assertEquals(List.of(Function.getDefaultInstance()), dictionary.getFunctionTableList());
        assertEquals(List.of(Location.getDefaultInstance()), dictionary.getLocationTableList());
        assertEquals(List.of(Stack.getDefaultInstance()), dictionary.getStackTableList());
        assertEquals(List.of(KeyValueAndUnit.getDefaultInstance()), dictionary.getAttributeTableList());
        assertEquals(List.of(Mapping.getDefaultInstance()), dictionary.getMappingTableList());
        Link zeroLink = dictionary.getLinkTable(0);
        assertEquals(1, dictionary.getLinkTableCount());
        assertEquals(ByteString.copyFrom(new byte[16]), zeroLink.getTraceId());
        assertEquals(ByteString.copyFrom(new byte[8]), zeroLink.getSpanId());
    }

    @Test
    void givesEqualValuesOneIndexAndNewValuesTheNextOne() {
        ProfilesDictionaryBuilder builder = new ProfilesDictionaryBuilder();

        assertEquals(0, builder.string(null));
        assertEquals(0, builder.string(""));
        assertEquals(1, builder.string("main"));
        assertEquals(2, builder.string("app.py"));
        assertEquals(1, builder.string(new String("main")));
        Function main = Function.newBuilder().setNameStrindex(1).setFilenameStrindex(2).build();
        assertEquals(1, builder.function(main));
        assertEquals(1, builder.function(main.toBuilder().build()));
        assertEquals(2, builder.function(main.toBuilder().setStartLine(7).build()));
        assertEquals(0, builder.function(Function.getDefaultInstance()), "the zero value is index 0");
        assertEquals(1, builder.stack(Stack.newBuilder().addLocationIndices(1).addLocationIndices(2).build()));
        assertEquals(2, builder.stack(Stack.newBuilder().addLocationIndices(2).addLocationIndices(1).build()),
                "order matters: stacks are leaf first");
        assertEquals(0, builder.stack(Stack.getDefaultInstance()));
    }

    @Test
    void identifiesAttributesByKeyValueAndUnit() {
        ProfilesDictionaryBuilder builder = new ProfilesDictionaryBuilder();

        int threadId = builder.attribute("thread.id", 1L);
        assertEquals(threadId, builder.attribute("thread.id", 1L));
        assertNotEquals(threadId, builder.attribute("thread.id", "1"));
        assertNotEquals(threadId, builder.attribute("thread.id", AnyValue.newBuilder().setIntValue(1).build(), "1"));
        assertEquals(4, builder.build().getAttributeTableCount());
        assertEquals(List.of("", "thread.id", "1"), builder.build().getStringTableList());
    }

    @Test
    void refusesLinksWhoseIdsConsumersWouldReject() {
        ProfilesDictionaryBuilder builder = new ProfilesDictionaryBuilder();
        Link link = Link.newBuilder().setTraceId(ByteString.copyFrom(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
                12, 13, 14, 15, 16})).setSpanId(ByteString.copyFrom(new byte[] {1, 2, 3, 4, 5, 6, 7, 8})).build();

        assertEquals(1, builder.link(link));
        assertEquals(0, builder.link(ProfilesDictionaryBuilder.ZERO_LINK));
        assertThrows(IllegalArgumentException.class, () -> builder.link(Link.getDefaultInstance()));
        assertThrows(IllegalArgumentException.class,
                () -> builder.link(link.toBuilder().setSpanId(ByteString.copyFrom(new byte[16])).build()));
    }

    @Test
    void buildsTablesInIndexOrder() {
        ProfilesDictionaryBuilder builder = new ProfilesDictionaryBuilder();
        int name = builder.string("f");
        int function = builder.function(Function.newBuilder().setNameStrindex(name).build());
        int mapping = builder.mapping(Mapping.newBuilder().setMemoryStart(1).setMemoryLimit(2).build());
        int location = builder.location(Location.newBuilder().setMappingIndex(mapping).setAddress(1).build());

        ProfilesDictionary dictionary = builder.build();

        assertEquals("f", dictionary.getStringTable(name));
        assertEquals(name, dictionary.getFunctionTable(function).getNameStrindex());
        assertEquals(1, dictionary.getMappingTable(mapping).getMemoryStart());
        assertEquals(mapping, dictionary.getLocationTable(location).getMappingIndex());
    }
}
