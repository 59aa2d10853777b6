/**
 * @zot/extension-sdk: write zot extensions in TypeScript or JavaScript
 * (Bun, Node ≥ 20, Deno), zero runtime dependencies. Protocol version 1
 * (extensions.md). Start with `new Extension(name, version)`, register, then
 * `await ext.run()`. See README.md.
 */
export { Extension } from "./extension.js";
export { LineReader } from "./line-reader.js";
export { FrameTooLargeError } from "./transport.js";
export { display, errorResponse, errorResult, imageResult, insert, noop, openPanel, prompt, textResult, toolPrompt, } from "./results.js";
export { HOST_DEADLINES, MAX_INBOUND_FRAME_BYTES, MAX_OUTBOUND_FRAME_BYTES, PROTOCOL_VERSION } from "./protocol.js";
