/**
 * The `write` tool: creates or overwrites a file with the given content,
 * creating parent directories, replacing the file atomically (temp + rename)
 * so a failure never leaves a half-written file. Writing through a symlink
 * updates the link's target; an existing file keeps its permission bits.
 */
import { stat } from "node:fs/promises";
import * as v from "valibot";
import { writeFileAtomic } from "../common/atomic.ts";
import { rememberOwnWrite } from "./file-snapshot.ts";
import { systemErrorCode } from "../common/errors.ts";
import { checkToolPath, describeFsError } from "./paths.ts";
import { countLines, guarded, PATH_PROPERTY, parseToolArgs, PathArg } from "./shared.ts";
import { textOutcome, type Tool, type ToolContext, type ToolOutcome } from "./types.ts";

const WriteArgs = v.object({
  path: PathArg,
  content: v.string("expected a string"),
});

const NEW_FILE_MODE = 0o644;

/** Permission bits of an existing regular file, the default for a new one, or an error text. */
export async function targetMode(file: string, path: string): Promise<{ readonly mode: number } | { readonly error: string }> {
  try {
    const stats = await stat(file);
    if (stats.isDirectory()) return { error: `${path} is a directory` };
    if (!stats.isFile()) return { error: `${path} is not a regular file` };
    return { mode: stats.mode & 0o777 };
  } catch (err) {
    if (systemErrorCode(err) === "ENOENT") return { mode: NEW_FILE_MODE };
    return { error: describeFsError(err, path) };
  }
}

async function executeWrite(rawArgs: Readonly<Record<string, unknown>>, ctx: ToolContext): Promise<ToolOutcome> {
  const parsed = parseToolArgs("write", WriteArgs, rawArgs);
  if (!parsed.ok) return parsed.outcome;
  const { path, content } = parsed.value;
  const checked = await checkToolPath(ctx, path, { forWriting: true });
  if (!checked.ok) return checked.outcome;
  if (ctx.signal.aborted) return textOutcome(`write: cancelled before writing ${path}`, true, { status: "cancelled" });

  const target = await targetMode(checked.canonical, path);
  if ("error" in target) return textOutcome(target.error, true);
  const bytes = Buffer.byteLength(content, "utf8");
  const lines = countLines(content);
  try {
    await writeFileAtomic(checked.canonical, content, target.mode);
    rememberOwnWrite(checked.canonical);
  } catch (err) {
    return textOutcome(describeFsError(err, path), true);
  }
  return textOutcome(`wrote ${bytes} bytes (${lines} ${lines === 1 ? "line" : "lines"}) to ${path}`, false, {
    details: { path: checked.absolute, bytes, total_lines: lines, start_line: 1 },
  });
}

export function createWriteTool(): Tool {
  return {
    name: "write",
    description: "Write a file. Creates parent dirs. Overwrites.",
    schema: {
      type: "object",
      properties: {
        path: PATH_PROPERTY,
        content: { type: "string" },
      },
      required: ["path", "content"],
    },
    execute: guarded("write", executeWrite),
  };
}
