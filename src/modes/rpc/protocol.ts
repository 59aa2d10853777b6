/**
 * The RPC wire format (docs/rpc.md; reference notes §5.3): valibot schemas
 * of every client command, the parse of one stdin line into a command or a
 * protocol error value, and the builders of the server's outgoing lines
 * (responses and the RPC-only events). Pure: no I/O.
 *
 * Parsing rules: a line that is not JSON, or is nested deeper than
 * MAX_JSON_DEPTH (256), is an error with an empty command;
 * a JSON value that is not an object, or has no string `type`, is an
 * `unknown command` error with the type it had (or ""); a known type whose
 * fields fail its schema is an error naming the field. `id` (string or
 * number) is echoed in the response whenever the line had one. Unknown
 * fields are ignored, and a field that is `null` counts as absent (as Go's
 * decoder in the original reads it). Image data must be standard base64.
 *
 * Every outgoing line is one JSON object with `type` first, Go-style
 * escaping of `<`, `>`, `&` (goJsonStringify) and a trailing "\n".
 */
import * as v from "valibot";
import { goJsonStringify } from "../../agent/events.ts";
import { MAX_JSON_DEPTH, describeJsonProblem, parseJson, isPlainObject } from "../../common/json.ts";
import { describeProblem, firstProblem } from "../../common/validation.ts";

export const RPC_PROTOCOL_VERSION = 1;
/** Longest stdin line (without its LF) the server reads; longer lines are skipped with an error. */
export const RPC_MAX_LINE_BYTES = 16 * 1024 * 1024;
/** Environment variable holding the shared secret a client must present in `hello`. */
export const RPC_TOKEN_ENV = "ZOTCORE_RPC_TOKEN";

export const RPC_ERRORS = {
  authRequired: "auth required: send hello with token first",
  invalidToken: "invalid token",
  unknownCommand: "unknown command",
  busy: "agent is busy",
  interrupted: "interrupted: zot is shutting down",
} as const;

/** A request id as the client sent it (echoed verbatim). */
export type RpcRequestId = string | number;

const requestId = v.optional(v.union([v.string(), v.number()]));
const bare = <T extends string>(type: T) => v.object({ type: v.literal(type), id: requestId });

/** Standard base64 (line breaks allowed, as Go's decoder allows them), padded to a multiple of 4. */
function isBase64(data: string): boolean {
  const flat = data.replace(/[\r\n]/g, "");
  return flat.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(flat);
}

const imageSchema = v.object({
  mime_type: v.pipe(v.string(), v.nonEmpty("must not be empty")),
  data: v.pipe(v.string(), v.check(isBase64, "must be base64 (standard alphabet, padded)")),
});

export const COMMAND_SCHEMAS = {
  hello: v.object({ type: v.literal("hello"), id: requestId, token: v.optional(v.string()) }),
  prompt: v.object({
    type: v.literal("prompt"),
    id: requestId,
    message: v.optional(v.string(), ""),
    images: v.optional(v.array(imageSchema), []),
  }),
  abort: bare("abort"),
  compact: bare("compact"),
  get_state: bare("get_state"),
  get_messages: bare("get_messages"),
  clear: bare("clear"),
  set_model: v.object({ type: v.literal("set_model"), id: requestId, model: v.pipe(v.string(), v.trim(), v.nonEmpty("must not be empty")) }),
  get_models: bare("get_models"),
  ping: bare("ping"),
} as const;

export type RpcCommandName = keyof typeof COMMAND_SCHEMAS;
export type RpcCommandOf<K extends RpcCommandName> = v.InferOutput<(typeof COMMAND_SCHEMAS)[K]>;
export type RpcCommand = { [K in RpcCommandName]: RpcCommandOf<K> }[RpcCommandName];

function isCommandName(type: string): type is RpcCommandName {
  return Object.hasOwn(COMMAND_SCHEMAS, type);
}

/** What one non-blank stdin line amounts to. */
export type ParsedLine =
  | { readonly kind: "command"; readonly command: RpcCommand }
  /** `command` is the line's type ("" when it had none). */
  | {
      readonly kind: "invalid";
      readonly problem: LineProblem;
      readonly command: string;
      readonly id: RpcRequestId | undefined;
      readonly error: string;
    };

/** malformed: not a JSON object; unknown_command: no such `type`; invalid_fields: a known type whose fields fail its schema. */
export type LineProblem = "malformed" | "unknown_command" | "invalid_fields";

function idOf(record: Readonly<Record<string, unknown>>): RpcRequestId | undefined {
  const id = record.id;
  return typeof id === "string" || typeof id === "number" ? id : undefined;
}

export function parseCommandLine(line: string): ParsedLine {
  const json = parseJson(line, MAX_JSON_DEPTH);
  if (!json.ok) {
    return { kind: "invalid", problem: "malformed", command: "", id: undefined, error: `malformed JSON: ${describeJsonProblem(json.problem)}` };
  }
  const value = json.value;
  if (!isPlainObject(value)) {
    return { kind: "invalid", problem: "malformed", command: "", id: undefined, error: "malformed command: expected a JSON object" };
  }
  const type = typeof value.type === "string" ? value.type : "";
  const id = idOf(value);
  if (!isCommandName(type)) return { kind: "invalid", problem: "unknown_command", command: type, id, error: RPC_ERRORS.unknownCommand };
  // A null field is an absent one, as the original's Go decoder reads it (`"id": null` from a Python client's None).
  const present = Object.fromEntries(Object.entries(value).filter(([, field]) => field !== null));
  const parsed = v.safeParse(COMMAND_SCHEMAS[type], present);
  if (!parsed.success) {
    const error = `invalid ${type} command: ${describeProblem(firstProblem(parsed.issues))}`;
    return { kind: "invalid", problem: "invalid_fields", command: type, id, error };
  }
  return { kind: "command", command: parsed.output };
}

/** `{"type":"response","id"?,"command","success":true,"data"?}` */
export function successLine(command: string, id: RpcRequestId | undefined, data?: unknown): string {
  return `${goJsonStringify({ type: "response", id, command, success: true, data })}\n`;
}

/** `{"type":"response","id"?,"command","success":false,"error"}` */
export function failureLine(command: string, id: RpcRequestId | undefined, error: string): string {
  return `${goJsonStringify({ type: "response", id, command, success: false, error })}\n`;
}

/** The events only RPC writes (agent events use toJsonEventLine). */
export type RpcEvent =
  | { readonly type: "done" }
  | { readonly type: "error"; readonly message: string }
  | { readonly type: "compact_done"; readonly summary: string }
  | { readonly type: "ext_notify"; readonly extension: string; readonly level: string; readonly message: string }
  | { readonly type: "ext_display"; readonly extension: string; readonly text: string }
  | { readonly type: "ext_clear_notes"; readonly extension: string };

export function rpcEventLine(event: RpcEvent): string {
  return `${goJsonStringify(event)}\n`;
}
