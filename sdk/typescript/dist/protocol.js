/** The protocol version this SDK speaks (hello_ack.protocol_version). */
export const PROTOCOL_VERSION = 1;
/** Longest line the host accepts from an extension: 4 MiB (bytes, newline excluded). A longer one disconnects the extension. */
export const MAX_OUTBOUND_FRAME_BYTES = 4 * 1024 * 1024;
/** Longest line the SDK accepts from the host: 64 MiB (the host's own largest request is 16 MiB). Longer lines are skipped and logged. */
export const MAX_INBOUND_FRAME_BYTES = 64 * 1024 * 1024;
/** Deadlines the host applies to replies (ms from when it sent the request). */
export const HOST_DEADLINES = { intercept: 5_000, command: 30_000, tool: 60_000, callTool: 60_000 };
