/**
 * Colours for the interactive mode. `colorEnabled` decides once per run:
 * off when NO_COLOR is set (non-empty), TERM is "dumb" or stdout is not a
 * terminal. A disabled Style returns every string unchanged, so callers never
 * test for colour themselves.
 */

export interface Style {
  readonly color: boolean;
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
  magenta(text: string): string;
}

export function colorEnabled(env: Readonly<Record<string, string | undefined>>, isTTY: boolean): boolean {
  if ((env.NO_COLOR ?? "") !== "") return false;
  if (env.TERM === "dumb") return false;
  return isTTY;
}

function sgr(open: number, close: number): (text: string) => string {
  return (text) => (text === "" ? text : `\x1b[${open}m${text}\x1b[${close}m`);
}

const identity = (text: string): string => text;

export function createStyle(color: boolean): Style {
  if (!color) {
    return { color, bold: identity, dim: identity, red: identity, green: identity, yellow: identity, cyan: identity, magenta: identity };
  }
  return {
    color,
    bold: sgr(1, 22),
    dim: sgr(2, 22),
    red: sgr(31, 39),
    green: sgr(32, 39),
    yellow: sgr(33, 39),
    cyan: sgr(36, 39),
    magenta: sgr(35, 39),
  };
}
