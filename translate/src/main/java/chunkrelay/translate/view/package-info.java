/**
 * Views of archived OTLP profiles: merging the OTLP forms of several chunks (with filters) into one profile, and
 * writing it as pprof, speedscope JSON, collapsed stacks or one OTLP request. Plain Java, no HTTP.
 */
package chunkrelay.translate.view;
