/**
 * The published shape of the protocol: a valibot schema for every frame in
 * both directions plus extension.json, each with a one-line description.
 * Inbound frames (extension → host) and the manifest are the very schemas
 * the host validates with (frames.ts, manifest.ts); outbound frames (host →
 * extension) are declared here and checked at compile time against
 * frames.ts's OutboundFrame, so the host cannot send a shape the schemas do
 * not describe. scripts/gen-schemas.ts turns this catalogue into
 * schemas/*.schema.json and schemas/frames.d.ts; `zot ext test` validates
 * with it directly. Nothing here runs at import time beyond building schemas.
 */
import * as v from "valibot";
import { COMMAND_ACTIONS, type InboundType, inboundSchemas, type OutboundFrame, PROTOCOL_VERSION } from "./frames.ts";
import { ManifestSchema } from "./manifest.ts";

const ResultBlock = v.union([
  v.looseObject({ type: v.literal("text"), text: v.string() }),
  v.looseObject({ type: v.literal("image"), mime_type: v.string(), data: v.string() }),
]);

/** Fields every lifecycle notification carries (extensions.md "Lifecycle payloads"). */
const eventEnvelope = {
  event: v.string(),
  session_id: v.optional(v.string()),
  cwd: v.optional(v.string()),
  sequence: v.optional(v.number()),
};

export const outboundSchemas = {
  hello_ack: v.looseObject({
    type: v.literal("hello_ack"),
    protocol_version: v.literal(PROTOCOL_VERSION),
    zot_version: v.string(),
    provider: v.string(),
    model: v.string(),
    cwd: v.string(),
    extension_dir: v.string(),
    data_dir: v.string(),
    capabilities: v.array(v.string()),
  }),
  command_invoked: v.looseObject({ type: v.literal("command_invoked"), id: v.string(), name: v.string(), args: v.optional(v.string()) }),
  tool_call: v.looseObject({ type: v.literal("tool_call"), id: v.string(), name: v.string(), args: v.unknown() }),
  tool_cancel: v.looseObject({ type: v.literal("tool_cancel"), id: v.string() }),
  event: v.looseObject({ type: v.literal("event"), ...eventEnvelope }),
  event_intercept: v.looseObject({ type: v.literal("event_intercept"), id: v.string(), ...eventEnvelope }),
  tool_result: v.looseObject({
    type: v.literal("tool_result"),
    id: v.string(),
    name: v.string(),
    content: v.array(ResultBlock),
    is_error: v.boolean(),
    truncated: v.optional(v.boolean()),
  }),
  panel_key: v.looseObject({ type: v.literal("panel_key"), panel_id: v.string(), key: v.string(), text: v.optional(v.string()) }),
  panel_close: v.looseObject({ type: v.literal("panel_close"), panel_id: v.string() }),
  shutdown: v.looseObject({ type: v.literal("shutdown") }),
} as const;

export type OutboundType = keyof typeof outboundSchemas;

// Compile-time drift check: each schema's output is a member of OutboundFrame and vice versa.
type SchemaOutput<K extends OutboundType> = v.InferOutput<(typeof outboundSchemas)[K]>;
type Member<K extends OutboundType> = Extract<OutboundFrame, { readonly type: K }>;
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type StripIndex<T> = { [K in keyof T as string extends K ? never : K]: T[K] };
type Frozen<T> = T extends readonly (infer E)[] ? readonly Frozen<E>[] : T extends object ? { readonly [K in keyof T]: Frozen<T[K]> } : T;
type AllMatch = { [K in OutboundType]: Same<Frozen<StripIndex<SchemaOutput<K>>>, Frozen<StripIndex<Member<K>>>> }[OutboundType];
const outboundMatchesHostTypes: false extends AllMatch ? "outbound schemas drifted from OutboundFrame" : true = true;
void outboundMatchesHostTypes;

export const inboundDescriptions: Readonly<Record<InboundType, string>> = {
  hello: "First frame an extension sends: its name (must match extension.json) and capabilities.",
  register_command: "Registers a slash command (names matched case-insensitively).",
  register_tool: "Registers a tool the model can call; schema is a JSON Schema object of type object.",
  ready: "All initial registrations are flushed.",
  subscribe: "Lifecycle events to observe and to intercept; send once after hello, before ready.",
  event_intercept_response: "Reply to event_intercept (within 5 s): block, rewrite args/text or replace the system prompt.",
  tool_result: "Reply to a host tool_call.",
  command_response: `Reply to command_invoked; action is one of ${COMMAND_ACTIONS.join(", ")}.`,
  call_tool: "Asks the host to run an active tool (only when hello_ack advertises call_tool).",
  call_tool_cancel: "Cancels an outstanding call_tool with the same id.",
  submit: "Submits text as a user prompt (interactive host only).",
  notify: "A one-shot note: level info, success, warn or error.",
  clear_notes: "Removes every note this extension pushed.",
  panel_render: "Pushes a fresh frame for an open panel.",
  panel_close: "Closes a panel this extension opened.",
  shutdown_ack: "Reply to shutdown; exit promptly after it.",
};

export const outboundDescriptions: Readonly<Record<OutboundType, string>> = {
  hello_ack: "Reply to hello: protocol version, host info, the extension's own directory, host capabilities.",
  command_invoked: "The user ran a registered command; reply with command_response.",
  tool_call: "The model (or call_tool) invoked a registered tool; reply with tool_result.",
  tool_cancel: "A delivered tool_call was abandoned (only to extensions advertising tool_cancel).",
  event: "Lifecycle notification for a subscribed event; fields beyond these depend on the event.",
  event_intercept: "Asks an intercepting extension to decide on an event; reply with event_intercept_response.",
  tool_result: "Reply to the extension's call_tool (content bounded to 256 KiB).",
  panel_key: "A key for a focused extension panel; key \"rune\" carries the character in text.",
  panel_close: "The user closed the extension's panel.",
  shutdown: "zot is exiting: reply with shutdown_ack and exit (2 s grace).",
};

export { inboundSchemas, ManifestSchema };
export const MANIFEST_DESCRIPTION = "extension.json: how zot finds and launches an extension.";
