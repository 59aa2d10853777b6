/**
 * Every frame of the extension protocol (extensions.md "Wire format"), both
 * directions, in one module. Inbound frames (extension → host) are validated
 * with valibot; unknown fields are tolerated everywhere; ids may arrive as
 * strings or numbers and are normalised to strings. Outbound frames (host →
 * extension) are typed constructors' shapes. `decodeInboundFrame` never
 * throws: it returns the frame or a typed problem for the extension's log.
 * Nesting is bounded before anything walks a frame: a line nested deeper than
 * MAX_JSON_DEPTH (256) is the `too_deep` problem (with the frame's top-level
 * type, id and name when a shallow scan finds them). Embedded values are bounded
 * where they are used: a register_tool schema (any value here) by the
 * registration checks (registration-rules.ts: a non-object, non-"object" or
 * deeper than MAX_VALUE_DEPTH schema rejects that tool by name), and
 * modified_args, tool_args, call_tool args where they are read, so the
 * waiting request still gets an answer.
 */
import * as v from "valibot";
import { MAX_JSON_DEPTH, parseJson } from "../common/json.ts";
import { describeProblem, firstProblem } from "../common/validation.ts";
import { peekTopLevel } from "./frame-peek.ts";

export const PROTOCOL_VERSION = 1;

const Id = v.pipe(v.union([v.string(), v.number()], "expected a string id"), v.transform(String));
const OptString = v.optional(v.string());
const OptBool = v.optional(v.boolean());
const StringList = v.optional(v.array(v.string()), []);

/** A result block as an extension sends it; unknown block types pass through for mapping. */
const ContentBlockSchema = v.looseObject({
  type: v.string(),
  text: OptString,
  mime_type: OptString,
  data: OptString,
});
export type WireContentBlock = v.InferOutput<typeof ContentBlockSchema>;

export const LIFECYCLE_EVENTS = [
  "session_start", "session_end", "user_prompt_submit", "turn_start", "turn_end", "tool_call",
  "tool_result", "tool_confirmation_requested", "permission_decision", "assistant_message",
  "pre_compact", "post_compact", "subagent_start", "subagent_stop",
] as const;
export type LifecycleEvent = (typeof LIFECYCLE_EVENTS)[number];

export const INTERCEPTABLE_EVENTS = ["before_agent_start", "tool_call", "turn_start", "assistant_message", "tool_result"] as const;
export type InterceptableEvent = (typeof INTERCEPTABLE_EVENTS)[number];

export const COMMAND_ACTIONS = ["prompt", "tool_prompt", "insert", "display", "open_panel", "noop"] as const;
export type CommandAction = (typeof COMMAND_ACTIONS)[number];

const PanelSchema = v.looseObject({
  id: v.string(),
  title: OptString,
  lines: v.optional(v.array(v.string()), []),
  footer: OptString,
});

/** The valibot schema of every inbound frame by type (also the source of schemas/frames, see wire-schemas.ts). */
export const inboundSchemas = {
  hello: v.looseObject({ type: v.literal("hello"), name: v.pipe(v.string(), v.minLength(1, "must not be empty")), version: OptString, capabilities: StringList }),
  register_command: v.looseObject({ type: v.literal("register_command"), name: v.pipe(v.string(), v.minLength(1, "must not be empty")), description: v.optional(v.string(), "") }),
  register_tool: v.looseObject({
    type: v.literal("register_tool"),
    name: v.pipe(v.string(), v.minLength(1, "must not be empty")),
    description: v.optional(v.string(), ""),
    // Any value: registration-rules.ts checks it (object, "type": "object", depth), so a bad schema
    // rejects that tool by name instead of dropping the frame.
    schema: v.optional(v.unknown()),
    deferred: OptBool,
    interactive: OptBool,
  }),
  ready: v.looseObject({ type: v.literal("ready") }),
  subscribe: v.looseObject({
    type: v.literal("subscribe"),
    events: StringList,
    intercept: StringList,
    on_timeout: v.optional(v.picklist(["allow", "deny"])),
  }),
  event_intercept_response: v.looseObject({
    type: v.literal("event_intercept_response"),
    id: Id,
    block: OptBool,
    reason: OptString,
    modified_args: v.optional(v.unknown()),
    replace_text: OptString,
    system_prompt: v.optional(v.unknown()),
    content: v.optional(v.array(ContentBlockSchema)),
  }),
  tool_result: v.looseObject({
    type: v.literal("tool_result"),
    id: Id,
    content: v.optional(v.array(ContentBlockSchema), []),
    is_error: OptBool,
    activate_tools: StringList,
  }),
  command_response: v.looseObject({
    type: v.literal("command_response"),
    id: Id,
    action: v.optional(v.string(), "noop"),
    prompt: OptString,
    insert: OptString,
    display: OptString,
    open_panel: v.optional(PanelSchema),
    error: OptString,
    tool_name: OptString,
    tool_args: v.optional(v.unknown()),
  }),
  call_tool: v.looseObject({ type: v.literal("call_tool"), id: Id, name: v.string(), args: v.optional(v.unknown()), parent_id: v.optional(Id) }),
  call_tool_cancel: v.looseObject({ type: v.literal("call_tool_cancel"), id: Id }),
  submit: v.looseObject({ type: v.literal("submit"), text: v.optional(v.string(), "") }),
  notify: v.looseObject({ type: v.literal("notify"), level: v.optional(v.string(), "info"), message: v.optional(v.string(), "") }),
  clear_notes: v.looseObject({ type: v.literal("clear_notes") }),
  panel_render: v.looseObject({ type: v.literal("panel_render"), panel_id: v.string(), title: OptString, lines: v.optional(v.array(v.string()), []), footer: OptString }),
  panel_close: v.looseObject({ type: v.literal("panel_close"), panel_id: v.string() }),
  shutdown_ack: v.looseObject({ type: v.literal("shutdown_ack") }),
} as const;

type InboundSchemas = typeof inboundSchemas;
export type InboundType = keyof InboundSchemas;
export type InboundFrame = { [K in InboundType]: v.InferOutput<InboundSchemas[K]> }[InboundType];
export type InboundOf<K extends InboundType> = v.InferOutput<InboundSchemas[K]>;

export type HelloFrame = InboundOf<"hello">;
export type RegisterToolFrame = InboundOf<"register_tool">;
export type ToolResultFrame = InboundOf<"tool_result">;
export type CommandResponseFrame = InboundOf<"command_response">;
export type InterceptResponseFrame = InboundOf<"event_intercept_response">;
export type SubscribeFrame = InboundOf<"subscribe">;

export type FrameProblem =
  | { readonly kind: "not_json"; readonly detail: string }
  /** `frameType` / `id` / `name`: what a shallow scan of the line found at its top level (frame-peek.ts). */
  | { readonly kind: "too_deep"; readonly limit: number; readonly frameType?: string; readonly id?: string; readonly name?: string }
  | { readonly kind: "not_object" }
  | { readonly kind: "unknown_type"; readonly frameType: string }
  /** `id`: the frame's own id when it has a string one (a malformed reply still names its request). */
  | { readonly kind: "invalid"; readonly frameType: string; readonly detail: string; readonly id?: string };

export type DecodeResult = { readonly ok: true; readonly frame: InboundFrame } | { readonly ok: false; readonly problem: FrameProblem };

export function decodeInboundFrame(line: string): DecodeResult {
  const parsed = parseJson(line, MAX_JSON_DEPTH);
  if (!parsed.ok) {
    const { problem } = parsed;
    if (problem.kind !== "too_deep") return { ok: false, problem: { kind: "not_json", detail: problem.message } };
    const peeked = peekTopLevel(line);
    return {
      ok: false,
      problem: {
        kind: "too_deep",
        limit: problem.limit,
        ...(peeked.type !== undefined ? { frameType: peeked.type } : {}),
        ...(peeked.id !== undefined ? { id: peeked.id } : {}),
        ...(peeked.name !== undefined ? { name: peeked.name } : {}),
      },
    };
  }
  const raw = parsed.value;
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return { ok: false, problem: { kind: "not_object" } };
  const type = (raw as { type?: unknown }).type;
  if (typeof type !== "string" || !Object.hasOwn(inboundSchemas, type)) {
    return { ok: false, problem: { kind: "unknown_type", frameType: typeof type === "string" ? type : String(type) } };
  }
  const schema = inboundSchemas[type as InboundType];
  const result = v.safeParse(schema, raw);
  if (!result.success) {
    const id = (raw as { id?: unknown }).id;
    const detail = describeProblem(firstProblem(result.issues));
    return { ok: false, problem: typeof id === "string" ? { kind: "invalid", frameType: type, detail, id } : { kind: "invalid", frameType: type, detail } };
  }
  return { ok: true, frame: result.output as InboundFrame };
}

/** A name from an extension's frame, fit for one log line. */
function oneLineName(text: string): string {
  return JSON.stringify(text.slice(0, 64)).slice(1, -1);
}

export function describeFrameProblem(problem: FrameProblem): string {
  switch (problem.kind) {
    case "not_json":
      return `malformed JSON frame dropped: ${problem.detail}`;
    case "too_deep": {
      if (problem.frameType === undefined) return `frame dropped: JSON nested deeper than ${problem.limit} levels`;
      const what = `${oneLineName(problem.frameType)} frame${problem.name !== undefined ? ` "${oneLineName(problem.name)}"` : ""}`;
      return `${what} dropped: JSON nested deeper than ${problem.limit} levels`;
    }
    case "not_object":
      return "frame dropped: not a JSON object";
    case "unknown_type":
      return `unknown frame type "${problem.frameType}" dropped`;
    case "invalid":
      return `invalid ${problem.frameType} frame dropped: ${problem.detail}`;
  }
}

// ---------------------------------------------------------------------------
// Host → extension

export interface WireResultBlockText { readonly type: "text"; readonly text: string }
export interface WireResultBlockImage { readonly type: "image"; readonly mime_type: string; readonly data: string }
export type WireResultBlock = WireResultBlockText | WireResultBlockImage;

export type OutboundFrame =
  | {
      readonly type: "hello_ack";
      readonly protocol_version: typeof PROTOCOL_VERSION;
      readonly zot_version: string;
      readonly provider: string;
      readonly model: string;
      readonly cwd: string;
      readonly extension_dir: string;
      readonly data_dir: string;
      readonly capabilities: readonly string[];
    }
  | { readonly type: "command_invoked"; readonly id: string; readonly name: string; readonly args?: string }
  | { readonly type: "tool_call"; readonly id: string; readonly name: string; readonly args: unknown }
  | { readonly type: "tool_cancel"; readonly id: string }
  | ({ readonly type: "event"; readonly event: string } & Readonly<Record<string, unknown>>)
  | ({ readonly type: "event_intercept"; readonly id: string; readonly event: string } & Readonly<Record<string, unknown>>)
  | {
      readonly type: "tool_result";
      readonly id: string;
      readonly name: string;
      readonly content: readonly WireResultBlock[];
      readonly is_error: boolean;
      readonly truncated?: boolean;
    }
  | { readonly type: "panel_key"; readonly panel_id: string; readonly key: string; readonly text?: string }
  | { readonly type: "panel_close"; readonly panel_id: string }
  | { readonly type: "shutdown" };

/** Capabilities this host advertises in hello_ack. */
export const HOST_CAPABILITIES = ["commands", "tools", "events", "intercept", "call_tool", "tool_cancel", "deferred_tools", "tool_prompt"] as const;
