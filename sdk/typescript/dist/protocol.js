/**
 * The wire shapes of the zot extension protocol (extensions.md, protocol
 * version 1) as the SDK sends and receives them. Field names are the wire's
 * (snake_case): what a handler returns is what goes on the wire, minus `type`
 * and `id`. Host frames are typed loosely where the protocol is additive:
 * unknown fields and unknown event names must be tolerated.
 */
/** The protocol version this SDK speaks (hello_ack.protocol_version). */
export const PROTOCOL_VERSION = 1;
/** Longest line the host accepts from an extension: 4 MiB (bytes, newline excluded). A longer one disconnects the extension. */
export const MAX_OUTBOUND_FRAME_BYTES = 4 * 1024 * 1024;
/** Longest line the SDK accepts from the host: 64 MiB (the host's own largest request is 16 MiB). Longer lines are skipped and logged. */
export const MAX_INBOUND_FRAME_BYTES = 64 * 1024 * 1024;
/** Deadlines the host applies to replies (ms from when it sent the request). */
export const HOST_DEADLINES = { intercept: 5_000, command: 30_000, tool: 60_000, callTool: 60_000 };
