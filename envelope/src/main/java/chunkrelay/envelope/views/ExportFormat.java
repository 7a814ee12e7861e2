package chunkrelay.envelope.views;

import java.util.Locale;

/** The forms a profile view can be downloaded in, with their media type and file name suffix. */
public enum ExportFormat {
    PPROF("application/octet-stream", "pb.gz"),
    SPEEDSCOPE("application/json", "speedscope.json"),
    COLLAPSED("text/plain; charset=utf-8", "collapsed.txt"),
    OTLP("application/x-protobuf", "otlp.binpb");

    private final String mediaType;
    private final String suffix;

    ExportFormat(String mediaType, String suffix) {
        this.mediaType = mediaType;
        this.suffix = suffix;
    }

    public String mediaType() {
        return mediaType;
    }

    public String suffix() {
        return suffix;
    }

    /** @throws IllegalArgumentException for a name that is none of the formats */
    public static ExportFormat of(String name) {
        try {
            return valueOf(name.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("format must be pprof, speedscope, collapsed or otlp, got '" + name + "'");
        }
    }
}
