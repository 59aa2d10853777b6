/**
 * Remembering choices in $ZOT_HOME/config.json (`/model` writes provider and
 * model). `updateConfigFile` reads the file as it is on disk, sets the given
 * fields (undefined removes one), keeps every other field untouched (the
 * original's theme, inline images, changelog markers) and replaces the file
 * atomically (temp file + rename) as pretty JSON with a 2-space indent, mode
 * 0644, as the original writes it. A missing file is an empty one. A file
 * that cannot be read, is not valid JSON or whose top level is not an object
 * is left alone: the update is refused with a ZotError naming the file
 * (code "config.unwritable"), so a hand-edited config with a typo is never
 * overwritten by a model switch.
 */
import { readFileSync } from "node:fs";
import { writeFileAtomic } from "./atomic.ts";
import { ZotError, errorMessage, systemErrorCode } from "./errors.ts";
import { MAX_JSON_DEPTH, parseJson } from "./json.ts";

export type ConfigUpdate = Readonly<Record<string, string | number | boolean | undefined>>;

export async function updateConfigFile(path: string, update: ConfigUpdate): Promise<void> {
  let current: Record<string, unknown> = {};
  let text: string | undefined;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    if (systemErrorCode(err) !== "ENOENT") throw new ZotError("config.unwritable", `${path}: cannot be read (${errorMessage(err)}); not updated`, { file: path });
  }
  if (text !== undefined && text.trim() !== "") {
    const parsed = parseJson(text, MAX_JSON_DEPTH);
    if (!parsed.ok || typeof parsed.value !== "object" || parsed.value === null || Array.isArray(parsed.value)) {
      throw new ZotError("config.unwritable", `${path}: not a JSON object; not updated (fix or remove it)`, { file: path });
    }
    current = parsed.value as Record<string, unknown>;
  }
  const next: Record<string, unknown> = { ...current };
  for (const [field, value] of Object.entries(update)) {
    if (value === undefined) delete next[field];
    else next[field] = value;
  }
  await writeFileAtomic(path, `${JSON.stringify(next, null, 2)}\n`, 0o644);
}
