/**
 * Helpers every built-in tool uses: output limits, the `path` argument the
 * file tools share (its valibot check and its JSON-schema property), valibot
 * argument parsing that turns a bad argument into an error outcome naming the
 * field, and a guard that converts an unexpected throw into an error outcome
 * so a tool's execute() never rejects.
 */
import * as v from "valibot";
import { errorMessage } from "../common/errors.ts";
import { describeProblem, firstProblem } from "../common/validation.ts";
import { textOutcome, type ToolContext, type ToolOutcome } from "./types.ts";

/** Most lines of file or command output one call returns. */
export const MAX_OUTPUT_LINES = 2000;
/** Most bytes of file or command output one call returns (50 KiB). */
export const MAX_OUTPUT_BYTES = 51_200;

/** The file tools' `path` argument: a non-empty string. */
export const PathArg = v.pipe(v.string("expected a string"), v.minLength(1, "must not be empty"));

/** How the file tools advertise `path` to the model (relative paths and `~/` are resolved). */
export const PATH_PROPERTY = { type: "string" } as const;

export type ParsedArgs<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly outcome: ToolOutcome };

/** Validates raw tool arguments; failure text: `<tool>: field "x": <problem>`. */
export function parseToolArgs<TSchema extends v.GenericSchema>(
  toolName: string,
  schema: TSchema,
  args: Readonly<Record<string, unknown>>,
): ParsedArgs<v.InferOutput<TSchema>> {
  const result = v.safeParse(schema, args);
  if (result.success) return { ok: true, value: result.output };
  const problem = firstProblem(result.issues);
  const issue = result.issues[0];
  const message = issue && isMissingKey(issue) ? missingKeyMessage(schema, issue) : problem.message;
  const text = `${toolName}: ${describeProblem({ field: problem.field, message })}`;
  return { ok: false, outcome: textOutcome(text, true, { details: { invalid_args: true } }) };
}

function isMissingKey(issue: v.BaseIssue<unknown>): boolean {
  return issue.kind === "schema" && issue.type === "object" && issue.received === "undefined" && (issue.path?.length ?? 0) > 0;
}

/** The message the field's own schema gives for an absent value ("expected a string"), else "is required". */
function missingKeyMessage(schema: v.GenericSchema, issue: v.BaseIssue<unknown>): string {
  let current: unknown = schema;
  for (const item of issue.path ?? []) {
    if (typeof current !== "object" || current === null) break;
    if ("entries" in current && typeof item.key === "string") {
      current = (current.entries as Record<string, unknown>)[item.key];
    } else if ("item" in current) current = current.item;
    else current = undefined;
  }
  if (typeof current === "object" && current !== null && "~standard" in current) {
    const check = v.safeParse(current as v.GenericSchema, undefined);
    if (!check.success && check.issues[0]) return check.issues[0].message;
  }
  return "is required";
}

export type ToolBody = (args: Readonly<Record<string, unknown>>, ctx: ToolContext) => Promise<ToolOutcome>;

/** Wraps a tool body so an unexpected exception becomes an error outcome. */
export function guarded(toolName: string, body: ToolBody): ToolBody {
  return async (args, ctx) => {
    try {
      return await body(args, ctx);
    } catch (err) {
      return textOutcome(`${toolName}: ${errorMessage(err)}`, true);
    }
  };
}

/** Lines in a text as an editor counts them: a trailing newline does not start a new line. */
export function countLines(text: string): number {
  if (text.length === 0) return 0;
  let count = 1;
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) count++;
  return text.endsWith("\n") ? count - 1 : count;
}

/** Largest index ≤ end that does not split a UTF-8 sequence in bytes. */
export function utf8Boundary(bytes: Uint8Array, end: number): number {
  let at = Math.min(end, bytes.length);
  while (at > 0 && at < bytes.length && ((bytes[at] ?? 0) & 0xc0) === 0x80) at--;
  return at;
}

/** Human size: 512 B, 50.0 KiB, 3.2 MiB. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}
