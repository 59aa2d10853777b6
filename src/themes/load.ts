/**
 * The themes of theme-only extensions: every enabled bundle that discovery
 * found (never spawned: src/ext/discovery.ts, same order and precedence as
 * extensions) whose directory holds `theme.json`, else `themes/theme.json`,
 * becomes one theme named by the file's `name` (default: the extension's
 * name). A file that does not validate, a name that is already taken (by a
 * built-in: dark, light, auto; or an earlier theme), or an unreadable file
 * is reported as one error naming the file (and the slot), and skipped.
 */
import { existsSync } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { errorMessage } from "../common/errors.ts";
import type { ZotPaths } from "../common/home.ts";
import type { Palette } from "../tui/theme.ts";
import { MAX_THEME_FILE_BYTES, parseThemeFile } from "./schema.ts";

export const BUILTIN_THEME_NAMES = ["dark", "light"] as const;
const RESERVED = new Set<string>([...BUILTIN_THEME_NAMES, "auto"]);

export interface ExtensionTheme {
  readonly palette: Palette;
  readonly description?: string;
  /** The extension that ships it. */
  readonly extension: string;
  readonly file: string;
}

export interface ThemeLoad {
  readonly themes: readonly ExtensionTheme[];
  readonly errors: readonly string[];
}

export interface ThemeLoadOptions {
  readonly cwd: string;
  readonly paths: ZotPaths;
  readonly explicit: readonly string[];
  readonly noDiscovery: boolean;
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

export async function loadExtensionThemes(options: ThemeLoadOptions): Promise<ThemeLoad> {
  const { discoverExtensions } = await import("../ext/discovery.ts");
  const report = await discoverExtensions(options);
  const themes: ExtensionTheme[] = [];
  const errors: string[] = [];
  const read = await Promise.all(
    report.bundles.flatMap((bundle) => {
      const file = themeFileOf(bundle.loaded.dir);
      return file === undefined ? [] : [readThemeFile(file, bundle.loaded.manifest.name)];
    }),
  );
  const taken = new Map<string, string>();
  for (const result of read) {
    if (!result.ok) {
      errors.push(result.error);
      continue;
    }
    const { palette, file } = result.theme;
    if (RESERVED.has(palette.name)) {
      errors.push(`${file}: name: "${palette.name}" is a built-in theme's name; ignored`);
      continue;
    }
    const holder = taken.get(palette.name);
    if (holder !== undefined) {
      errors.push(`${file}: name: "${palette.name}" is taken by ${holder}; ignored`);
      continue;
    }
    taken.set(palette.name, file);
    themes.push(result.theme);
  }
  return { themes, errors };
}
