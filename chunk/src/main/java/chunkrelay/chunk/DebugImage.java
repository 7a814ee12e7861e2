package chunkrelay.chunk;

/**
 * An entry of {@code debug_meta.images}. Addresses are unsigned 64-bit values; absent fields are null.
 */
public record DebugImage(
        String type,
        Long imageAddr,
        Long imageSize,
        Long imageVmaddr,
        String codeFile,
        String debugId,
        String codeId,
        String uuid,
        String arch) {

    /** True when {@code address} falls in {@code [imageAddr, imageAddr + imageSize)}. */
    public boolean contains(long address) {
        if (imageAddr == null || imageSize == null || imageSize <= 0) {
            return false;
        }
        long offset = address - imageAddr;
        return Long.compareUnsigned(address, imageAddr) >= 0 && Long.compareUnsigned(offset, imageSize) < 0;
    }
}
