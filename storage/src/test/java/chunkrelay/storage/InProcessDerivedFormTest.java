package chunkrelay.storage;

import java.time.Clock;

/** Every {@link DerivedFormTest} again with the archive reaching the server's store in-process. */
class InProcessDerivedFormTest extends DerivedFormTest {

    @Override
    ChunkArchive open() {
        return ChunkArchive.inProcess(server, ArchiveFixtures.settings(server), Clock.systemUTC());
    }
}
