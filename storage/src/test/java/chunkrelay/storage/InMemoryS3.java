package chunkrelay.storage;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

import java.time.Clock;

/**
 * A real S3 server (S3Proxy in memory) for a test class, and for each test an {@link ObjectStore} on a fresh bucket
 * of it, handed to whichever of the test's methods takes one (its {@code @BeforeEach}, say). JUnit closes the store
 * when the test ends and the server when the class ends, as they are kept in its store.
 */
final class InMemoryS3 implements BeforeAllCallback, ParameterResolver {
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(InMemoryS3.class);

    @Override
    public void beforeAll(ExtensionContext context) {
        // the SDK, S3Proxy and zstd loaded before a test measures time
        ArchiveFixtures.warmUp();
        context.getStore(NAMESPACE).put(EmbeddedS3Server.class, EmbeddedS3Server.inMemory());
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == ObjectStore.class;
    }

    @Override
    public ObjectStore resolveParameter(ParameterContext parameter, ExtensionContext context) {
        ExtensionContext.Store store = context.getStore(NAMESPACE);
        EmbeddedS3Server server = store.get(EmbeddedS3Server.class, EmbeddedS3Server.class);
        // one store per test, however many of its methods take it
        return store.getOrComputeIfAbsent(ObjectStore.class,
                type -> ObjectStore.inProcess(server, ArchiveFixtures.settings(server), Clock.systemUTC()),
                ObjectStore.class);
    }
}
