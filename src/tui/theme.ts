/**
 * The styles every widget draws with. createTheme(true) wraps text in SGR
 * sequences (each style closes with its own "off" code, so styles nest and
 * a styled piece never ends the colour of what surrounds it); with
 * createTheme(false) (NO_COLOR, TERM=dumb) every style is the identity and
 * widgets produce plain text. Pure; no terminal detection here.
 */

export interface Theme {
  readonly colors: boolean;
  dim(text: string): string;
  bold(text: string): string;
  italic(text: string): string;
  accent(text: string): string;
  muted(text: string): string;
  error(text: string): string;
  warning(text: string): string;
  success(text: string): string;
  inverse(text: string): string;
}

const identity = (text: string): string => text;

function style(on: string, off: string): (text: string) => string {
  return (text) => (text === "" ? "" : `\x1b[${on}m${text}\x1b[${off}m`);
}

const COLOURED: Theme = {
  colors: true,
  dim: style("2", "22"),
  bold: style("1", "22"),
  italic: style("3", "23"),
  accent: style("36", "39"),
  muted: style("90", "39"),
  error: style("31", "39"),
  warning: style("33", "39"),
  success: style("32", "39"),
  inverse: style("7", "27"),
};

const PLAIN: Theme = {
  colors: false,
  dim: identity,
  bold: identity,
  italic: identity,
  accent: identity,
  muted: identity,
  error: identity,
  warning: identity,
  success: identity,
  inverse: identity,
};

export function createTheme(colors: boolean): Theme {
  return colors ? COLOURED : PLAIN;
}
