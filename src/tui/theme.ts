/**
 * The styles every widget draws with, built from a Palette of named colour
 * slots (docs/themes.md): foreground, muted, accent, user-message background
 * and foreground, assistant, tool, tool output, error, warning, success,
 * spinner, selection background and foreground. A slot's colour is an
 * xterm-256 index (0–15 are written as the classic 30–37 / 90–97 codes, so
 * they follow the terminal's own palette) or "#rrggbb" (24-bit, or the
 * nearest xterm-256 colour when `truecolor` is false); an absent slot is the
 * terminal's default. Each style closes with its own "off" code and re-opens
 * itself after a nested style's "off", so styles nest and a styled piece
 * never ends the colour of what surrounds it. Selection without colours is
 * inverse video.
 *
 * createTheme(true) is the built-in dark theme, createTheme(false) (NO_COLOR,
 * TERM=dumb) makes every style the identity so widgets produce plain text;
 * createTheme(true, palette) uses that palette. SwitchableTheme is a Theme
 * whose palette can be replaced while the UI runs (/theme). Pure; no
 * terminal detection here.
 */

/** An xterm-256 index (0–255) or "#rrggbb". */
export type Colour = number | string;

export const PALETTE_SLOTS = [
  "foreground",
  "muted",
  "accent",
  "user_message_bg",
  "user_message_fg",
  "assistant",
  "tool",
  "tool_output",
  "error",
  "warning",
  "success",
  "spinner",
  "selection_bg",
  "selection_fg",
] as const;

export type PaletteSlot = (typeof PALETTE_SLOTS)[number];

export interface Palette {
  readonly name: string;
  /** Which kind of background it is made for. */
  readonly appearance: "dark" | "light";
  readonly colors: Readonly<Partial<Record<PaletteSlot, Colour>>>;
}

export const DARK_PALETTE: Palette = {
  name: "dark",
  appearance: "dark",
  colors: { muted: 8, accent: 6, error: 1, warning: 3, success: 2, spinner: 6, tool: 6, user_message_bg: 236 },
};

export const LIGHT_PALETTE: Palette = {
  name: "light",
  appearance: "light",
  colors: {
    foreground: 235,
    muted: 243,
    accent: 25,
    error: 124,
    warning: 130,
    success: 28,
    spinner: 25,
    tool: 25,
    user_message_bg: 254,
    user_message_fg: 232,
    selection_bg: 153,
    selection_fg: 232,
  },
};

export interface Theme {
  readonly colors: boolean;
  /** The palette's name ("dark", "light", an extension theme's name; "plain" without colours). */
  readonly name: string;
  dim(text: string): string;
  bold(text: string): string;
  italic(text: string): string;
  accent(text: string): string;
  muted(text: string): string;
  error(text: string): string;
  warning(text: string): string;
  success(text: string): string;
  inverse(text: string): string;
  /** Plain chat text (identity when the palette leaves it to the terminal). */
  foreground(text: string): string;
  /** A user message's rows (background and foreground). */
  userMessage(text: string): string;
  assistant(text: string): string;
  /** A tool call's name. */
  tool(text: string): string;
  /** A tool call's output preview. */
  toolOutput(text: string): string;
  spinner(text: string): string;
  /** The selected row of a list. */
  selection(text: string): string;
}

type Style = (text: string) => string;

const identity: Style = (text) => text;

function style(on: string, off: string): Style {
  if (on === "") return identity;
  const close = `\x1b[${off}m`;
  const open = `\x1b[${on}m`;
  return (text) => (text === "" ? "" : `${open}${text.includes(close) ? text.split(close).join(`${close}${open}`) : text}${close}`);
}

const HEX = /^#([0-9a-fA-F]{2})([0-9a-fA-F]{2})([0-9a-fA-F]{2})$/;
const CUBE = [0, 95, 135, 175, 215, 255];

/** The xterm-256 colour nearest to an RGB value (6×6×6 cube or the grey ramp). */
export function nearest256(r: number, g: number, b: number): number {
  const level = (value: number): number => {
    let best = 0;
    for (let i = 1; i < CUBE.length; i++) if (Math.abs(CUBE[i]! - value) < Math.abs(CUBE[best]! - value)) best = i;
    return best;
  };
  const [ri, gi, bi] = [level(r), level(g), level(b)];
  const cube = 16 + 36 * ri + 6 * gi + bi;
  const cubeDistance = (CUBE[ri]! - r) ** 2 + (CUBE[gi]! - g) ** 2 + (CUBE[bi]! - b) ** 2;
  const grey = Math.max(0, Math.min(23, Math.round(((r + g + b) / 3 - 8) / 10)));
  const greyValue = 8 + grey * 10;
  const greyDistance = (greyValue - r) ** 2 + (greyValue - g) ** 2 + (greyValue - b) ** 2;
  return greyDistance < cubeDistance ? 232 + grey : cube;
}

/** SGR parameters of a colour as foreground (`layer` 3) or background (`layer` 4); "" when absent or invalid. */
export function colourCode(colour: Colour | undefined, layer: 3 | 4, truecolor = true): string {
  if (colour === undefined) return "";
  if (typeof colour === "number") {
    if (!Number.isInteger(colour) || colour < 0 || colour > 255) return "";
    if (colour < 8) return `${layer}${colour}`;
    if (colour < 16) return `${layer === 3 ? 9 : 10}${colour - 8}`;
    return `${layer}8;5;${colour}`;
  }
  const match = HEX.exec(colour);
  if (match === null) return "";
  const [r, g, b] = [match[1]!, match[2]!, match[3]!].map((part) => Number.parseInt(part, 16)) as [number, number, number];
  return truecolor ? `${layer}8;2;${r};${g};${b}` : `${layer}8;5;${nearest256(r, g, b)}`;
}

export interface ThemeOptions {
  /** 24-bit colours as they are (default); else the nearest xterm-256 colour. */
  readonly truecolor?: boolean;
}

function colouredTheme(palette: Palette, options: ThemeOptions): Theme {
  const truecolor = options.truecolor ?? true;
  const fg = (slot: PaletteSlot): Style => style(colourCode(palette.colors[slot], 3, truecolor), "39");
  const bg = (slot: PaletteSlot): Style => style(colourCode(palette.colors[slot], 4, truecolor), "49");
  const both = (a: Style, b: Style): Style => (a === identity ? b : b === identity ? a : (text) => a(b(text)));
  const selection = both(bg("selection_bg"), fg("selection_fg"));
  const foreground = fg("foreground");
  const assistant = palette.colors.assistant === undefined ? foreground : fg("assistant");
  return {
    colors: true,
    name: palette.name,
    dim: style("2", "22"),
    bold: style("1", "22"),
    italic: style("3", "23"),
    accent: fg("accent"),
    muted: fg("muted"),
    error: fg("error"),
    warning: fg("warning"),
    success: fg("success"),
    inverse: style("7", "27"),
    foreground,
    userMessage: both(bg("user_message_bg"), palette.colors.user_message_fg === undefined ? foreground : fg("user_message_fg")),
    assistant,
    tool: fg("tool"),
    toolOutput: fg("tool_output"),
    spinner: palette.colors.spinner === undefined ? fg("accent") : fg("spinner"),
    selection: selection === identity ? style("7", "27") : selection,
  };
}

const PLAIN: Theme = {
  colors: false,
  name: "plain",
  dim: identity,
  bold: identity,
  italic: identity,
  accent: identity,
  muted: identity,
  error: identity,
  warning: identity,
  success: identity,
  inverse: identity,
  foreground: identity,
  userMessage: identity,
  assistant: identity,
  tool: identity,
  toolOutput: identity,
  spinner: identity,
  selection: identity,
};

const DARK = colouredTheme(DARK_PALETTE, {});

export function createTheme(colors: boolean, palette?: Palette, options: ThemeOptions = {}): Theme {
  if (!colors) return PLAIN;
  if (palette === undefined || (palette === DARK_PALETTE && options.truecolor !== false)) return DARK;
  return colouredTheme(palette, options);
}

/** A Theme whose styles follow `use(theme)` from the next call on (every widget holding it repaints in the new theme). */
export class SwitchableTheme implements Theme {
  #current: Theme;

  constructor(initial: Theme) {
    this.#current = initial;
  }

  get current(): Theme {
    return this.#current;
  }

  use(theme: Theme): void {
    this.#current = theme instanceof SwitchableTheme ? theme.current : theme;
  }

  get colors(): boolean {
    return this.#current.colors;
  }

  get name(): string {
    return this.#current.name;
  }

  readonly dim = (text: string): string => this.#current.dim(text);
  readonly bold = (text: string): string => this.#current.bold(text);
  readonly italic = (text: string): string => this.#current.italic(text);
  readonly accent = (text: string): string => this.#current.accent(text);
  readonly muted = (text: string): string => this.#current.muted(text);
  readonly error = (text: string): string => this.#current.error(text);
  readonly warning = (text: string): string => this.#current.warning(text);
  readonly success = (text: string): string => this.#current.success(text);
  readonly inverse = (text: string): string => this.#current.inverse(text);
  readonly foreground = (text: string): string => this.#current.foreground(text);
  readonly userMessage = (text: string): string => this.#current.userMessage(text);
  readonly assistant = (text: string): string => this.#current.assistant(text);
  readonly tool = (text: string): string => this.#current.tool(text);
  readonly toolOutput = (text: string): string => this.#current.toolOutput(text);
  readonly spinner = (text: string): string => this.#current.spinner(text);
  readonly selection = (text: string): string => this.#current.selection(text);
}
