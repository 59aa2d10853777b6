/**
 * NO_COLOR (https://no-color.org): when the variable is set to anything but
 * "", nothing zot writes to a terminal carries colour: its own styles are
 * off (the plain theme) and SGR sequences in outside text (tool output,
 * extension text, model text) are removed on the way to the terminal.
 * TERM=dumb counts the same. Pipes and files get the raw text as before.
 */
const SGR = /\x1b\[[0-9;:]*m/g;

export function noColorRequested(env: Readonly<Record<string, string | undefined>> = process.env): boolean {
  return (env.NO_COLOR ?? "") !== "" || env.TERM === "dumb";
}

/** `text` without SGR (colour and style) sequences. */
export function stripSgr(text: string): string {
  return text.includes("\x1b[") ? text.replace(SGR, "") : text;
}
