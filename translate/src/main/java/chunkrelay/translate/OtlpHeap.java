package chunkrelay.translate;

import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;

/** What holding an OTLP object costs on the heap, for the budgets of what waits in memory as objects. */
public final class OtlpHeap {
    /** An OTLP object's heap against its serialised size: 2.8 (Node) to 4.3 (Java) on the recorded chunks. */
    private static final int OBJECT_PER_SERIALISED_BYTE = 5;

    private OtlpHeap() {
    }

    /** The object's heap, estimated from its serialised size (which protobuf computes once and keeps). */
    public static long bytes(ExportProfilesServiceRequest request) {
        return (long) OBJECT_PER_SERIALISED_BYTE * request.getSerializedSize();
    }
}
