/** The benchmark suite: every figure as a ratio to a floor measured in the same run, printed as one report. */
package chunkrelay.bench;
