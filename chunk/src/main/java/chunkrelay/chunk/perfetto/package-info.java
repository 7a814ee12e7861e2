/** Reads Android Perfetto stack-sampling traces (ProfilingManager, API 35+) into samples, stacks, frames and images. */
package chunkrelay.chunk.perfetto;
