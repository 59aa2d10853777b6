/**
 * Which theme a run starts with (docs/themes.md): ZOT_THEME (dark, light,
 * auto or a theme's name) wins over config.json's `theme` (what /theme
 * remembered), else auto. auto asks the terminal for its background colour
 * (OSC 11, answered as `rgb:RRRR/GGGG/BBBB`): a light background (brightness
 * 0.299·R + 0.587·G + 0.114·B above 0.5) picks light, anything else (a dark one, no answer
 * within the bound) dark. A name no theme has is a warning and counts as
 * auto. Colours are off (no theme at all) with NO_COLOR set (non-empty) or
 * TERM=dumb; 24-bit colours are kept when COLORTERM says truecolor / 24bit,
 * else mapped to the nearest xterm-256 colour. Pure.
 */
import { DARK_PALETTE, LIGHT_PALETTE, type Palette } from "../tui/theme.ts";
import type { ExtensionTheme } from "./load.ts";

/** How long auto waits for the terminal's answer (ZOT_THEME_QUERY_MS overrides, 1–10000). */
export const BACKGROUND_QUERY_MS = 80;

export type Env = Readonly<Record<string, string | undefined>>;

export interface ThemeRequest {
  /** "auto", "dark", "light" or an extension theme's name. */
  readonly name: string;
  /** Where it came from, for warnings. */
  readonly source: "ZOT_THEME" | "config.json" | "default";
}

export interface Rgb {
  readonly r: number;
  readonly g: number;
  readonly b: number;
}

/** Colours: off when NO_COLOR is set (non-empty) or TERM is "dumb". */
export function colorEnabled(env: Env): boolean {
  return (env.NO_COLOR ?? "") === "" && env.TERM !== "dumb";
}

export function truecolorEnabled(env: Env): boolean {
  const value = (env.COLORTERM ?? "").toLowerCase();
  return value === "truecolor" || value === "24bit";
}

export function backgroundQueryMs(env: Env): number {
  const value = Number(env.ZOT_THEME_QUERY_MS);
  return Number.isInteger(value) && value >= 1 && value <= 10_000 ? value : BACKGROUND_QUERY_MS;
}

export function themeRequest(env: Env, configTheme: unknown): ThemeRequest {
  const fromEnv = (env.ZOT_THEME ?? "").trim();
  if (fromEnv !== "") return { name: fromEnv, source: "ZOT_THEME" };
  if (typeof configTheme === "string" && configTheme.trim() !== "") return { name: configTheme.trim(), source: "config.json" };
  return { name: "auto", source: "default" };
}

/** The colour of an OSC 11 answer's payload (`rgb:RRRR/GGGG/BBBB`, 1–4 hex digits each, or `#rrggbb`), each channel 0–1. */
export function parseBackground(payload: string): Rgb | undefined {
  const rgb = /^rgba?:([0-9a-fA-F]{1,4})\/([0-9a-fA-F]{1,4})\/([0-9a-fA-F]{1,4})/.exec(payload);
  if (rgb !== null) {
    const channel = (hex: string): number => Number.parseInt(hex, 16) / (16 ** hex.length - 1);
    return { r: channel(rgb[1]!), g: channel(rgb[2]!), b: channel(rgb[3]!) };
  }
  const hash = /^#([0-9a-fA-F]{2})([0-9a-fA-F]{2})([0-9a-fA-F]{2})$/.exec(payload);
  if (hash !== null) return { r: Number.parseInt(hash[1]!, 16) / 255, g: Number.parseInt(hash[2]!, 16) / 255, b: Number.parseInt(hash[3]!, 16) / 255 };
  return undefined;
}

export function isLightBackground(colour: Rgb): boolean {
  return 0.299 * colour.r + 0.587 * colour.g + 0.114 * colour.b > 0.5;
}

export function autoPalette(background: Rgb | undefined): Palette {
  return background !== undefined && isLightBackground(background) ? LIGHT_PALETTE : DARK_PALETTE;
}

/** The palette named `name` (built-in or an extension's); undefined for "auto" and unknown names. */
export function namedPalette(name: string, themes: readonly ExtensionTheme[]): Palette | undefined {
  if (name === "dark") return DARK_PALETTE;
  if (name === "light") return LIGHT_PALETTE;
  return themes.find((theme) => theme.palette.name === name)?.palette;
}
