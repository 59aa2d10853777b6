/**
 * Remembers the chosen theme as config.json's `theme` field: the file is
 * read, `theme` set, every other field kept as it was, and the file
 * replaced atomically (0644). A missing file is created. A file that exists
 * but cannot be read, is not valid JSON or whose top level is not an object
 * is left untouched and the failure returned (naming the file), so a broken
 * config is never overwritten.
 */
import { readFileSync } from "node:fs";
import { writeFileAtomic } from "../common/atomic.ts";
import { errorMessage, systemErrorCode } from "../common/errors.ts";
import { MAX_JSON_DEPTH, parseJson } from "../common/json.ts";

export async function rememberTheme(configFile: string, name: string): Promise<{ ok: true } | { ok: false; error: string }> {
  let config: Record<string, unknown> = {};
  try {
    const parsed = parseJson(readFileSync(configFile, "utf8"), MAX_JSON_DEPTH);
    if (!parsed.ok || typeof parsed.value !== "object" || parsed.value === null || Array.isArray(parsed.value)) {
      return { ok: false, error: `${configFile}: not a JSON object; left as it is (fix it to remember the theme)` };
    }
    config = parsed.value as Record<string, unknown>;
  } catch (err) {
    if (systemErrorCode(err) !== "ENOENT") return { ok: false, error: `${configFile}: cannot be read (${errorMessage(err)})` };
  }
  config.theme = name;
  try {
    await writeFileAtomic(configFile, `${JSON.stringify(config, null, 2)}\n`);
    return { ok: true };
  } catch (err) {
    return { ok: false, error: `${configFile}: cannot be written (${errorMessage(err)})` };
  }
}
