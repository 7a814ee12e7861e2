/**
 * Android ART method traces ({@code Debug.startMethodTracingSampling} files, "dmtrace"): a streaming parser over the
 * decoded bytes with the strictness of Relay's {@code android_trace_log}, and the replay of its enter/exit events
 * into timed stack samples.
 */
package chunkrelay.chunk.art;
