/**
 * The terminal UI toolkit (a leaf: imports only src/common). Public API:
 * the differential Renderer, the process terminal, the key decoder, the
 * text helpers, the shared shapes, and the widgets.
 */
export * from "./types.ts";
export * from "./text.ts";
export { KeyDecoder, MAX_SEQUENCE } from "./keys.ts";
export { Renderer, type RendererOptions, type RendererStats, type TerminalOutput, type TerminalSize } from "./renderer.ts";
export { prepareLine, type ReflowModel } from "./frame.ts";
export { ESCAPE_TIMEOUT_MS, processTerminal, type Terminal, type TerminalInput, writeAllSync } from "./terminal.ts";
export * from "./widgets/index.ts";
