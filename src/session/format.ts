/**
 * The session file format (JSONL, one JSON object per line, "\n"-terminated,
 * UTF-8). Every row has a `type` field, written first:
 *
 *   {"type":"meta","meta":{"id","cwd","model","provider","started","version","title"?,"parent"?,"fork_point"?}}
 *       Line 1 is always a meta row. Later meta rows (model switch, rename)
 *       are complete replacements: the last one wins.
 *   {"type":"message","message":{"role","content":[block...],"time","meta"?}}
 *       Blocks carry a `type` discriminator (text, image, tool_call,
 *       tool_result, thinking, redacted_thinking, reasoning) with the
 *       snake_case fields of providers/types.ts. Message rows are numbered
 *       0, 1, 2... in file order ("row index"), counting every line whose
 *       `type` is "message", valid or not.
 *   {"type":"usage","usage":{Usage of this model call},"cumulative":{running total}}
 *       The last row's `cumulative` seeds the cost on resume.
 *   {"type":"compaction","message":{summary user message},"kept_from":N,"tokens_before"?:T}
 *       The transcript was compacted: on load it becomes [summary message] +
 *       the message rows with row index >= N seen so far + every message row
 *       after this line. A later compaction replaces an earlier one; N is
 *       clamped to [previous kept_from, message rows so far].
 *   {"type":"rename","title":"..."}  (read only; written by the original zot)
 *
 * Blocks without a `type` (files of the original Go zot) are recognised by
 * their fields (see legacy.ts). This module parses one decoded row; it does
 * no I/O.
 */
import * as v from "valibot";
import type { ContentBlock, Message, Usage } from "../providers/types.ts";
import { describeProblem, firstProblem } from "../common/validation.ts";
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
    arguments: v.string(),
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
  | { readonly ok: true; readonly row: SessionRow; readonly droppedBlocks: number }
  | { readonly ok: false; readonly problem: string };

/** Validates one decoded JSON value as a session row. */
export function parseRow(raw: unknown): RowParse {
  const result = v.safeParse(RowSchema, raw);
  if (!result.success) return { ok: false, problem: describeProblem(firstProblem(result.issues)) };
  const row = result.output;
  switch (row.type) {
    case "meta":
      return { ok: true, row, droppedBlocks: 0 };
    case "rename":
      return { ok: true, row, droppedBlocks: 0 };
    case "usage":
      return { ok: true, row: { type: "usage", usage: row.usage, cumulative: row.cumulative ?? row.usage }, droppedBlocks: 0 };
    case "message": {
      const { message, droppedBlocks } = buildMessage(row.message);
      return { ok: true, row: { type: "message", message }, droppedBlocks };
    }
    case "compaction": {
      const { message, droppedBlocks } = buildMessage(row.message);
      const compaction: SessionRow = row.tokens_before === undefined
        ? { type: "compaction", message, kept_from: row.kept_from }
        : { type: "compaction", message, kept_from: row.kept_from, tokens_before: row.tokens_before };
      return { ok: true, row: compaction, droppedBlocks };
    }
  }
}

type RawMessage = v.InferOutput<typeof RawMessageSchema>;

function buildMessage(raw: RawMessage): { message: Message; droppedBlocks: number } {
  const content: ContentBlock[] = [];
  let droppedBlocks = 0;
  for (const item of raw.content) {
    const block = parseBlock(item);
    if (block) content.push(block);
    else droppedBlocks++;
  }
  const message: Message = raw.meta
    ? { role: raw.role, content, time: raw.time, meta: raw.meta }
    : { role: raw.role, content, time: raw.time };
  return { message, droppedBlocks };
}

/** One content block, typed or legacy (untyped); undefined when unusable. */
export function parseBlock(item: unknown): ContentBlock | undefined {
  if (typeof item === "object" && item !== null && "type" in item) {
    const result = v.safeParse(ContentBlockSchema, item);
    return result.success ? result.output : undefined;
  }
  return legacyBlock(item);
}

/** The line (with its trailing newline) for one row. */
export function serializeRow(row: SessionRow): string {
  return `${JSON.stringify(row)}\n`;
}
