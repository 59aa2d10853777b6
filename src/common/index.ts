/** Shared building blocks: errors, $ZOT_HOME layout, atomic writes, version. */
export * from "./errors.ts";
export * from "./home.ts";
export * from "./atomic.ts";
export * from "./version.ts";
