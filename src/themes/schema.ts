/**
 * theme.json (docs/themes.md, schemas/theme.schema.json): validation and
 * conversion to a Palette. The file is a JSON object (at most
 * MAX_THEME_FILE_BYTES, nested at most MAX_JSON_DEPTH) with an optional
 * `name` (default: the extension's name), `appearance` ("dark" default or
 * "light": the built-in palette the slots not given come from), optional
 * `description`, and `colors`: an object whose keys are slot names
 * (PALETTE_SLOTS) and whose values are xterm-256 indexes (integers 0–255) or
 * "#rrggbb". Other top-level fields (`$schema`) are ignored; an unknown slot
 * is an error. Every error names the file and the slot (or field) at fault:
 * `<path>: colors.accent: expected an xterm-256 index (0-255) or "#rrggbb", got 300`.
 */
import * as v from "valibot";
import { MAX_JSON_DEPTH, describeJsonProblem, parseJson } from "../common/json.ts";
import { DARK_PALETTE, LIGHT_PALETTE, PALETTE_SLOTS, type Colour, type Palette, type PaletteSlot } from "../tui/theme.ts";

export const MAX_THEME_FILE_BYTES = 64 * 1024;
const NAME_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9_.@+-]{0,63}$/;
const COLOUR_MESSAGE = 'expected an xterm-256 index (0-255) or "#rrggbb"';

const ColourSchema = v.union(
  [
    v.pipe(v.number(COLOUR_MESSAGE), v.integer(COLOUR_MESSAGE), v.minValue(0, COLOUR_MESSAGE), v.maxValue(255, COLOUR_MESSAGE)),
    v.pipe(v.string(COLOUR_MESSAGE), v.regex(/^#[0-9a-fA-F]{6}$/, COLOUR_MESSAGE)),
  ],
  COLOUR_MESSAGE,
);

const ColorsSchema = v.strictObject(
  Object.fromEntries(PALETTE_SLOTS.map((slot) => [slot, v.optional(ColourSchema)])) as Record<PaletteSlot, v.OptionalSchema<typeof ColourSchema, undefined>>,
  "expected an object of colour slots",
);

export const ThemeFileSchema = v.looseObject(
  {
    $schema: v.optional(v.string("expected a string")),
    name: v.optional(v.pipe(v.string("expected a string"), v.regex(NAME_PATTERN, "must be 1-64 letters, digits, '_', '-', '.', '@', '+', not starting with '.', '-', '@' or '+'"))),
    appearance: v.optional(v.picklist(["dark", "light"], 'expected "dark" or "light"')),
    description: v.optional(v.string("expected a string")),
    colors: ColorsSchema,
  },
  "expected a JSON object",
);

export type ThemeFileResult = { readonly ok: true; readonly palette: Palette; readonly description?: string } | { readonly ok: false; readonly error: string };

function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 39)}…` : text;
}

function problemOf(issues: readonly v.BaseIssue<unknown>[]): string {
  const issue = issues[0];
  if (issue === undefined) return "invalid theme";
  const path = v.getDotPath(issue) ?? "";
  if (issue.type === "strict_object" && path.startsWith("colors.")) {
    return `${path}: unknown colour slot (known: ${PALETTE_SLOTS.join(", ")})`;
  }
  if (path === "") return issue.message;
  if (path === "colors" && issue.input === undefined) return "colors: is required";
  return `${path}: ${issue.message}, got ${shown(issue.input)}`;
}

/** Validates theme.json text read from `path`; `fallbackName` names it when the file does not. */
export function parseThemeFile(path: string, text: string, fallbackName: string): ThemeFileResult {
  if (Buffer.byteLength(text) > MAX_THEME_FILE_BYTES) return { ok: false, error: `${path}: larger than ${MAX_THEME_FILE_BYTES} bytes; ignored` };
  const parsed = parseJson(text, MAX_JSON_DEPTH);
  if (!parsed.ok) {
    const detail = parsed.problem.kind === "too_deep" ? describeJsonProblem(parsed.problem) : `not valid JSON (${parsed.problem.message})`;
    return { ok: false, error: `${path}: ${detail}` };
  }
  // valibot's object schemas take arrays for objects: refused here first.
  const raw = parsed.value;
  if (Array.isArray(raw)) return { ok: false, error: `${path}: expected a JSON object` };
  if (typeof raw === "object" && raw !== null && Array.isArray((raw as Record<string, unknown>).colors)) {
    return { ok: false, error: `${path}: colors: expected an object of colour slots, got an array` };
  }
  const result = v.safeParse(ThemeFileSchema, raw);
  if (!result.success) return { ok: false, error: `${path}: ${problemOf(result.issues)}` };
  const file = result.output;
  const base = file.appearance === "light" ? LIGHT_PALETTE : DARK_PALETTE;
  const colors: Partial<Record<PaletteSlot, Colour>> = { ...base.colors };
  for (const slot of PALETTE_SLOTS) {
    const value = file.colors[slot];
    if (value !== undefined) colors[slot] = value;
  }
  const palette: Palette = { name: file.name ?? fallbackName, appearance: file.appearance ?? "dark", colors };
  return file.description === undefined ? { ok: true, palette } : { ok: true, palette, description: file.description };
}
