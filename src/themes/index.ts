/**
 * Themes (docs/themes.md): theme.json validation (schema.ts), the themes
 * of theme-only extensions (load.ts), which theme a run starts with
 * (choose.ts) and remembering /theme's choice in config.json (remember.ts).
 * Importing this module does no work.
 */
export { MAX_THEME_FILE_BYTES, parseThemeFile, ThemeFileSchema, type ThemeFileResult } from "./schema.ts";
export { BUILTIN_THEME_NAMES, loadExtensionThemes, readThemeFile, themeFileOf, type ExtensionTheme, type ThemeLoad, type ThemeLoadOptions } from "./load.ts";
export {
  autoPalette,
  BACKGROUND_QUERY_MS,
  backgroundQueryMs,
  colorEnabled,
  isLightBackground,
  namedPalette,
  parseBackground,
  themeRequest,
  truecolorEnabled,
  type Rgb,
  type ThemeRequest,
} from "./choose.ts";
export { rememberTheme } from "./remember.ts";
