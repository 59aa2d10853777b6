/**
 * The session file format (JSONL, one JSON object per line, "\n"-terminated,
 * UTF-8). Every row has a `type` field, written first (readers peek at it
 * without parsing the line, see lines.ts):
 *
 *   {"type":"meta","meta":{"id","cwd","model","provider","started","version","title"?,"parent"?,"fork_point"?,"agent_id"?}}
 *       Line 1 is always a meta row. Later meta rows (model switch, rename)
 *       are complete replacements: the last one wins.
 *   {"type":"message","message":{"role","content":[block...],"time","meta"?}}
 *       Blocks carry a `type` discriminator (text, image, tool_call,
 *       tool_result, thinking, redacted_thinking, reasoning) with the
 *       snake_case fields of providers/types.ts, except that in the file a
 *       tool_call's `arguments` is a JSON object (arguments.ts) and a
 *       reasoning block's id is `reasoning_id`: the shapes the original zot
 *       writes, which tells blocks apart by their fields and ignores `type`.
 *       Message rows are numbered 0, 1, 2... in file order ("row index"):
 *       every line whose leading `type` is "message" counts, valid or not.
 *   {"type":"usage","usage":{Usage of this model call},"cumulative":{running total}}
 *       The last row's `cumulative` seeds the cost on resume.
 *   {"type":"compaction","message":{summary user message},"kept_from":N,"tokens_before"?:T}
 *       The transcript was compacted: on load it becomes [summary message] +
 *       the message rows with row index >= N seen so far + every message row
 *       after this line. A later compaction replaces an earlier one; N is
 *       clamped to [previous kept_from, message rows so far].
 *   {"type":"rename","title":"..."}  (the picker's rename, as the original zot)
 *
 * Blocks without a `type` (files of the original Go zot) are recognised by
 * their fields (see legacy.ts). Reading accepts tool-call arguments as an
 * object or as a string (earlier files of this zot). This module parses one
 * decoded row and serialises one row; it does no I/O.
 */
import * as v from "valibot";
import type { ContentBlock, Message, Usage } from "../providers/types.ts";
import { describeProblem, firstProblem } from "../common/validation.ts";
import { argumentsForFile, argumentsFromFile } from "./arguments.ts";
import { legacyBlock } from "./legacy.ts";

export interface SessionMeta {
  readonly id: string;
  readonly cwd: string;
  readonly model: string;
  readonly provider: string;
  /** RFC 3339 UTC start time. */
  readonly started: string;
  readonly version: string;
  readonly title?: string;
  /** Id of the session this one was forked from. */
  readonly parent?: string;
  /** Number of parent message rows copied into this fork. */
  readonly fork_point?: number;
  /** A subagent's session: its agent_id (`parent` is then the parent conversation's id). */
  readonly agent_id?: string;
}

export type SessionRow =
  | { readonly type: "meta"; readonly meta: SessionMeta }
  | { readonly type: "message"; readonly message: Message }
  | { readonly type: "usage"; readonly usage: Usage; readonly cumulative: Usage }
  | {
      readonly type: "compaction";
      readonly message: Message;
      readonly kept_from: number;
      readonly tokens_before?: number;
    }
  | { readonly type: "rename"; readonly title: string };

const tolerantString = v.optional(v.string(), "");

const MetaSchema = v.object({
  id: v.pipe(v.string(), v.minLength(1, "must not be empty")),
  cwd: tolerantString,
  model: tolerantString,
  provider: tolerantString,
  started: tolerantString,
  version: tolerantString,
  title: v.optional(v.string()),
  parent: v.optional(v.string()),
  fork_point: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
  agent_id: v.optional(v.string()),
});

const tokenCount = v.optional(v.number(), 0);
const UsageSchema = v.object({
  input_tokens: tokenCount,
  output_tokens: tokenCount,
  cache_read_tokens: tokenCount,
  cache_write_tokens: tokenCount,
  cost_usd: tokenCount,
});

const TextSchema = v.object({ type: v.literal("text"), text: v.string() });
const ImageSchema = v.object({ type: v.literal("image"), mime_type: v.string(), data: v.string() });
const ContentBlockSchema = v.variant("type", [
  TextSchema,
  ImageSchema,
  v.object({
    type: v.literal("tool_call"),
    id: v.string(),
    name: v.string(),
    arguments: v.unknown(),
    origin_extension: v.optional(v.string()),
  }),
  v.object({
    type: v.literal("tool_result"),
    call_id: v.string(),
    content: v.array(v.variant("type", [TextSchema, ImageSchema])),
    is_error: v.boolean(),
  }),
  v.object({ type: v.literal("thinking"), thinking: v.string(), signature: v.optional(v.string()) }),
  v.object({ type: v.literal("redacted_thinking"), data: v.string() }),
  v.object({
    type: v.literal("reasoning"),
    id: v.optional(v.string()),
    reasoning_id: v.optional(v.string()),
    summary: v.optional(v.string()),
    encrypted_content: v.optional(v.string()),
  }),
]);

/** Blocks are checked one by one (see parseMessage), so content is unknown[] here. */
const RawMessageSchema = v.object({
  role: v.picklist(["user", "assistant", "tool"]),
  content: v.nullish(v.array(v.unknown()), []),
  time: tolerantString,
  meta: v.optional(v.record(v.string(), v.string())),
});

const RowSchema = v.variant("type", [
  v.object({ type: v.literal("meta"), meta: MetaSchema }),
  v.object({ type: v.literal("message"), message: RawMessageSchema }),
  v.object({ type: v.literal("usage"), usage: UsageSchema, cumulative: v.optional(UsageSchema) }),
  v.object({
    type: v.literal("compaction"),
    message: RawMessageSchema,
    kept_from: v.pipe(v.number(), v.integer(), v.minValue(0)),
    tokens_before: v.optional(v.number()),
  }),
  v.object({ type: v.literal("rename"), title: v.string() }),
]);

export type RowParse =
  | {
      readonly ok: true;
      readonly row: SessionRow;
      readonly droppedBlocks: number;
      /** Tool calls whose arguments were nested too deep and replaced by {}. */
      readonly replacedArguments: number;
    }
  | { readonly ok: false; readonly problem: string };

/** Validates one decoded JSON value as a session row. */
export function parseRow(raw: unknown): RowParse {
  const result = v.safeParse(RowSchema, raw);
  if (!result.success) return { ok: false, problem: describeProblem(firstProblem(result.issues)) };
  const row = result.output;
  switch (row.type) {
    case "meta":
      return { ok: true, row, droppedBlocks: 0, replacedArguments: 0 };
    case "rename":
      return { ok: true, row, droppedBlocks: 0, replacedArguments: 0 };
    case "usage": {
      const usage: SessionRow = { type: "usage", usage: row.usage, cumulative: row.cumulative ?? row.usage };
      return { ok: true, row: usage, droppedBlocks: 0, replacedArguments: 0 };
    }
    case "message": {
      const { message, droppedBlocks, replacedArguments } = buildMessage(row.message);
      return { ok: true, row: { type: "message", message }, droppedBlocks, replacedArguments };
    }
    case "compaction": {
      const { message, droppedBlocks, replacedArguments } = buildMessage(row.message);
      const compaction: SessionRow = row.tokens_before === undefined
        ? { type: "compaction", message, kept_from: row.kept_from }
        : { type: "compaction", message, kept_from: row.kept_from, tokens_before: row.tokens_before };
      return { ok: true, row: compaction, droppedBlocks, replacedArguments };
    }
  }
}

type RawMessage = v.InferOutput<typeof RawMessageSchema>;

interface BuiltMessage {
  readonly message: Message;
  readonly droppedBlocks: number;
  readonly replacedArguments: number;
}

function buildMessage(raw: RawMessage): BuiltMessage {
  const content: ContentBlock[] = [];
  let droppedBlocks = 0;
  let replacedArguments = 0;
  for (const item of raw.content) {
    const parsed = parseBlock(item);
    if (parsed === undefined) {
      droppedBlocks++;
      continue;
    }
    content.push(parsed.block);
    if (parsed.replacedArguments) replacedArguments++;
  }
  const message: Message = raw.meta
    ? { role: raw.role, content, time: raw.time, meta: raw.meta }
    : { role: raw.role, content, time: raw.time };
  return { message, droppedBlocks, replacedArguments };
}

export interface ParsedBlock {
  readonly block: ContentBlock;
  /** A tool call's arguments were nested too deep and replaced by "{}". */
  readonly replacedArguments: boolean;
}

type TypedBlock = v.InferOutput<typeof ContentBlockSchema>;

function fromTyped(block: TypedBlock): ParsedBlock {
  switch (block.type) {
    case "tool_call": {
      const args = argumentsFromFile(block.arguments);
      const call: ContentBlock = {
        type: "tool_call",
        id: block.id,
        name: block.name,
        arguments: args.text,
        ...(block.origin_extension !== undefined ? { origin_extension: block.origin_extension } : {}),
      };
      return { block: call, replacedArguments: args.replaced };
    }
    case "reasoning": {
      const id = block.reasoning_id ?? block.id;
      const reasoning: ContentBlock = {
        type: "reasoning",
        ...(id !== undefined ? { id } : {}),
        ...(block.summary !== undefined ? { summary: block.summary } : {}),
        ...(block.encrypted_content !== undefined ? { encrypted_content: block.encrypted_content } : {}),
      };
      return { block: reasoning, replacedArguments: false };
    }
    default:
      return { block, replacedArguments: false };
  }
}

/** One content block, typed or legacy (untyped); undefined when unusable. */
export function parseBlock(item: unknown): ParsedBlock | undefined {
  if (typeof item === "object" && item !== null && "type" in item) {
    const result = v.safeParse(ContentBlockSchema, item);
    return result.success ? fromTyped(result.output) : undefined;
  }
  return legacyBlock(item);
}

/** A block as written to the file (see the header: arguments object, reasoning_id). */
function blockForFile(block: ContentBlock): unknown {
  switch (block.type) {
    case "tool_call":
      return {
        type: "tool_call",
        id: block.id,
        name: block.name,
        arguments: argumentsForFile(block.arguments),
        ...(block.origin_extension !== undefined ? { origin_extension: block.origin_extension } : {}),
      };
    case "reasoning":
      return {
        type: "reasoning",
        ...(block.id !== undefined ? { reasoning_id: block.id } : {}),
        ...(block.summary !== undefined ? { summary: block.summary } : {}),
        ...(block.encrypted_content !== undefined ? { encrypted_content: block.encrypted_content } : {}),
      };
    default:
      return block;
  }
}

function messageForFile(message: Message): unknown {
  return { ...message, content: message.content.map(blockForFile) };
}

/** The line (with its trailing newline) for one row. */
export function serializeRow(row: SessionRow): string {
  switch (row.type) {
    case "message":
      return `${JSON.stringify({ type: "message", message: messageForFile(row.message) })}\n`;
    case "compaction":
      return `${JSON.stringify({ ...row, message: messageForFile(row.message) })}\n`;
    default:
      return `${JSON.stringify(row)}\n`;
  }
}
