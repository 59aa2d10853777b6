/**
 * The `edit` tool: exact-text replacements in an existing file. Every edit is
 * validated against the ORIGINAL content (non-empty oldText, different from
 * newText, exactly one occurrence, no overlaps) before anything is written;
 * then all are applied at once and the file is replaced atomically. Line
 * endings (CRLF) and a UTF-8 BOM are preserved. The result is a compact diff.
 * A concurrent writer's data is never lost (file-snapshot.ts): when the file
 * changed since it was read (identity, size, mtime or content, checked right
 * before the rename) the edit fails with a clear error; bytes appended in
 * the last instant are carried over to the new file and the result says so.
 */
import * as v from "valibot";
import type { Replacement } from "./diff.ts";
import { writeFileAtomic } from "../common/atomic.ts";
import { assertUnchanged, carryLateAppends, FileChangedError, releaseSnapshot, rememberOwnWrite, takeSnapshot, type FileSnapshot } from "./file-snapshot.ts";
import { checkToolPath, describeFsError } from "./paths.ts";
import { guarded, PATH_PROPERTY, parseToolArgs, PathArg } from "./shared.ts";
import { textOutcome, type Tool, type ToolContext, type ToolOutcome } from "./types.ts";
import { targetMode } from "./write.ts";

const EditArgs = v.object({
  path: PathArg,
  edits: v.pipe(
    v.array(
      v.object({
        oldText: v.string("expected a string"),
        newText: v.string("expected a string"),
      }, "expected an object {oldText, newText}"),
      "expected an array of {oldText, newText}",
    ),
    v.minLength(1, "must contain at least one edit"),
  ),
});

const BOM = "\uFEFF";
const BINARY_SNIFF_CHARS = 8 * 1024;

interface LocatedEdit extends Replacement {
  /** 1-based position in the edits array, for messages. */
  readonly index: number;
}

export type EditPlan = { readonly ok: true; readonly replacements: readonly LocatedEdit[] } | { readonly ok: false; readonly error: string };

function normaliseNewlines(text: string): string {
  return text.includes("\r\n") ? text.replaceAll("\r\n", "\n") : text;
}

function countOccurrences(haystack: string, needle: string, firstAt: number): number {
  let count = 0;
  for (let at = firstAt; at !== -1; at = haystack.indexOf(needle, at + 1)) count++;
  return count;
}

/** Locates every edit in the original (LF-normalised) content; pure, for testing. */
export function planEdits(content: string, edits: readonly { oldText: string; newText: string }[], path: string): EditPlan {
  const located: LocatedEdit[] = [];
  for (const [i, edit] of edits.entries()) {
    const index = i + 1;
    const oldText = normaliseNewlines(edit.oldText);
    const newText = normaliseNewlines(edit.newText);
    if (oldText.length === 0) return { ok: false, error: `edit ${index}: oldText must not be empty (in ${path})` };
    if (oldText === newText) return { ok: false, error: `edit ${index}: oldText and newText are identical (in ${path})` };
    const at = content.indexOf(oldText);
    if (at === -1) return { ok: false, error: `edit ${index}: oldText not found in ${path}` };
    const matches = countOccurrences(content, oldText, at);
    if (matches > 1) {
      return { ok: false, error: `edit ${index}: oldText matches ${matches} times (must be unique) in ${path}; include more surrounding text` };
    }
    located.push({ index, start: at, end: at + oldText.length, text: newText });
  }
  located.sort((a, b) => a.start - b.start);
  for (let k = 1; k < located.length; k++) {
    const before = located[k - 1];
    const after = located[k];
    if (before && after && after.start < before.end) {
      const [first, second] = before.index < after.index ? [before.index, after.index] : [after.index, before.index];
      return { ok: false, error: `edits ${first} and ${second} overlap in ${path}; merge them into one edit` };
    }
  }
  return { ok: true, replacements: located };
}

export function applyReplacements(content: string, replacements: readonly Replacement[]): string {
  let result = "";
  let cursor = 0;
  for (const replacement of replacements) {
    result += content.slice(cursor, replacement.start) + replacement.text;
    cursor = replacement.end;
  }
  return result + content.slice(cursor);
}

async function executeEdit(rawArgs: Readonly<Record<string, unknown>>, ctx: ToolContext): Promise<ToolOutcome> {
  const parsed = parseToolArgs("edit", EditArgs, rawArgs);
  if (!parsed.ok) return parsed.outcome;
  const { path, edits } = parsed.value;
  const checked = await checkToolPath(ctx, path, { forWriting: true });
  if (!checked.ok) return checked.outcome;

  const target = await targetMode(checked.canonical, path);
  if ("error" in target) return textOutcome(target.error, true);
  let snapshot: FileSnapshot;
  try {
    snapshot = takeSnapshot(checked.canonical, path);
  } catch (err) {
    return textOutcome(err instanceof FileChangedError ? err.message : describeFsError(err, path), true);
  }
  try {
    return await editSnapshot(snapshot, checked.canonical, checked.absolute, path, edits, target.mode, ctx);
  } finally {
    releaseSnapshot(snapshot);
  }
}

async function editSnapshot(
  snapshot: FileSnapshot,
  file: string,
  absolute: string,
  path: string,
  edits: readonly { oldText: string; newText: string }[],
  mode: number,
  ctx: ToolContext,
): Promise<ToolOutcome> {
  const raw = snapshot.bytes.toString("utf8");
  if (raw.slice(0, BINARY_SNIFF_CHARS).includes("\0")) return textOutcome(`${path} looks binary; refusing to edit`, true);

  const hasBom = raw.startsWith(BOM);
  const withoutBom = hasBom ? raw.slice(BOM.length) : raw;
  const usesCrlf = withoutBom.includes("\r\n");
  const original = normaliseNewlines(withoutBom);

  const plan = planEdits(original, edits, path);
  if (!plan.ok) return textOutcome(plan.error, true);
  const updated = applyReplacements(original, plan.replacements);
  const onDisk = (hasBom ? BOM : "") + (usesCrlf ? updated.replaceAll("\n", "\r\n") : updated);

  if (ctx.signal.aborted) return textOutcome(`edit: cancelled before writing ${path}`, true, { status: "cancelled" });
  let carried: number;
  try {
    await writeFileAtomic(file, onDisk, { mode, verify: () => assertUnchanged(snapshot, file, path) });
    carried = await carryLateAppends(snapshot, file);
    rememberOwnWrite(file);
  } catch (err) {
    if (err instanceof FileChangedError) return textOutcome(err.message, true, { details: { path: absolute, changed: true } });
    return textOutcome(describeFsError(err, path), true);
  }
  // Loaded at the first edit (its own chunk): a run that never edits never loads it.
  const { compactDiff } = await import("./diff.ts");
  const diff = compactDiff(original, plan.replacements);
  const note = carried > 0 ? `\n(note: ${carried} bytes another process appended to ${path} during the edit were kept at its end)` : "";
  return textOutcome(diff.text + note, false, {
    details: {
      path: absolute,
      edits: edits.length,
      diff: diff.text,
      first_changed_line: diff.firstChangedLine,
      lines_added: diff.added,
      lines_removed: diff.removed,
      ...(carried > 0 ? { carried_bytes: carried } : {}),
    },
  });
}

export function createEditTool(): Tool {
  return {
    name: "edit",
    description: "Edit an existing file via exact-match replacements. Preserves line endings and BOM.",
    schema: {
      type: "object",
      properties: {
        path: PATH_PROPERTY,
        edits: {
          type: "array",
          minItems: 1,
          description: "Each oldText must match exactly once in the original file.",
          items: {
            type: "object",
            properties: {
              oldText: { type: "string" },
              newText: { type: "string" },
            },
            required: ["oldText", "newText"],
          },
        },
      },
      required: ["path", "edits"],
    },
    execute: guarded("edit", executeEdit),
  };
}
