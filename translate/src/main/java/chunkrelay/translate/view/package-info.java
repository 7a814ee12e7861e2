/**
 * Views of archived OTLP profiles: merging the OTLP forms of several chunks (with filters) into one profile, writing
 * it as pprof, speedscope JSON, collapsed stacks or one OTLP request, and the answers built from merged profiles
 * (traces with linked samples, differential profiles, timelines). Plain Java, no HTTP.
 */
package chunkrelay.translate.view;
