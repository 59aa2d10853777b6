/**
 * @zot/extension-sdk: write zot extensions in TypeScript or JavaScript
 * (Bun, Node ≥ 20, Deno), zero runtime dependencies. Protocol version 1
 * (extensions.md). Start with `new Extension(name, version)`, register, then
 * `await ext.run()`. See README.md.
 */
export { Extension } from "./extension.ts";
export type { CommandContext, CommandHandler, CommandResponseLike, EventHandler, ExtensionOptions, PanelHandlers, ToolContext, ToolHandler } from "./handlers.ts";
export type { CallToolOptions } from "./calls.ts";
export type { InterceptHandlers, InterceptKind } from "./intercepts.ts";
export { LineReader } from "./line-reader.ts";
export { FrameTooLargeError } from "./transport.ts";
export type { ReadableLike, WritableLike } from "./transport.ts";
export { display, errorResponse, errorResult, imageResult, insert, noop, openPanel, prompt, textResult, toolPrompt, } from "./results.ts";
export { HOST_DEADLINES, MAX_INBOUND_FRAME_BYTES, MAX_OUTBOUND_FRAME_BYTES, PROTOCOL_VERSION } from "./protocol.ts";
export type * from "./protocol.ts";
