package chunkrelay.translate;

import io.opentelemetry.proto.profiles.v1development.Location;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The cocoa fixtures' addresses after Relay's pointer-authentication mask lie outside their only image
 * ({@code 0x10258c000}, 1 720 320 bytes), so they keep their address and get no mapping; and the
 * image, which no frame lies in, is not written (it would be an orphan). The inside case is pinned in
 * {@link ChunkTranslatorTest#attachesAnAddressToTheImageThatContainsIt}.
 */
class CocoaAddressMappingTest {

    @ParameterizedTest
    @ValueSource(strings = {"relay/sample_v2_valid.json", "vroomrs/sample__v2__valid_cocoa.json"})
    void keepsMaskedAddressesOutsideTheImageUnmapped(String fixture) {
        OtlpView view = new OtlpView(new ChunkTranslator("chunk-relay", "test")
                .translate(FixtureChunks.sentryFixture(fixture).chunk(), TranslationContext.forProject(1)));

        List<Location> locations = view.dictionary.getLocationTableList().subList(1,
                view.dictionary.getLocationTableCount());
        assertEquals(List.of(0xffffffffcL, 0x1f5031e58L), locations.stream().map(Location::getAddress).toList());
        assertEquals(List.of(0, 0), locations.stream().map(Location::getMappingIndex).toList());
        assertEquals(1, view.dictionary.getMappingTableCount(), "only the zero mapping");
        assertEquals(List.of("native", "native"), locations.stream()
                .map(l -> view.attributes(l).get(OtlpAttributes.PROFILE_FRAME_TYPE).getStringValue()).toList());
    }
}
