/**
 * One extension's theme file: theme.json beside its extension.json, else
 * themes/theme.json; read (at most MAX_THEME_FILE_BYTES, a regular file) and
 * validated (schema.ts). Errors name the file (and the slot).
 */
import { existsSync } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { errorMessage } from "../common/errors.ts";
import type { Palette } from "../tui/theme.ts";
import { MAX_THEME_FILE_BYTES, parseThemeFile } from "./schema.ts";

export interface ExtensionTheme {
  readonly palette: Palette;
  readonly description?: string;
  /** The extension that ships it. */
  readonly extension: string;
  readonly file: string;
}

/** theme.json or themes/theme.json of an extension directory; undefined when it has neither. */
export function themeFileOf(dir: string): string | undefined {
  for (const candidate of [join(dir, "theme.json"), join(dir, "themes", "theme.json")]) if (existsSync(candidate)) return candidate;
  return undefined;
}

/** Reads and validates one theme file. */
export async function readThemeFile(file: string, extension: string): Promise<{ ok: true; theme: ExtensionTheme } | { ok: false; error: string }> {
  try {
    const info = await stat(file);
    if (!info.isFile()) return { ok: false, error: `${file}: not a regular file` };
    if (info.size > MAX_THEME_FILE_BYTES) return { ok: false, error: `${file}: larger than ${MAX_THEME_FILE_BYTES} bytes; ignored` };
    const parsed = parseThemeFile(file, await readFile(file, "utf8"), extension);
    if (!parsed.ok) return parsed;
    const theme: ExtensionTheme = { palette: parsed.palette, extension, file, ...(parsed.description === undefined ? {} : { description: parsed.description }) };
    return { ok: true, theme };
  } catch (err) {
    return { ok: false, error: `${file}: cannot be read (${errorMessage(err)})` };
  }
}

