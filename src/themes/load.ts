/**
 * The themes of theme-only extensions: every enabled bundle that discovery
 * found (never spawned: src/ext/discovery.ts, same order and precedence as
 * extensions) whose directory holds `theme.json`, else `themes/theme.json`,
 * becomes one theme named by the file's `name` (default: the extension's
 * name). A file that does not validate, a name that is already taken (by a
 * built-in: dark, light, auto; or an earlier theme), or an unreadable file
 * is reported as one error naming the file (and the slot), and skipped.
 */
import type { ZotPaths } from "../common/home.ts";
import { readThemeFile, themeFileOf, type ExtensionTheme } from "./file.ts";

export { readThemeFile, themeFileOf, type ExtensionTheme } from "./file.ts";

export const BUILTIN_THEME_NAMES = ["dark", "light"] as const;
const RESERVED = new Set<string>([...BUILTIN_THEME_NAMES, "auto"]);

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
