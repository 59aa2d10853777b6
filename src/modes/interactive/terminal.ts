/**
 * The controlling terminal: synchronous writes to stdout (so output order is
 * the call order), its size, and raw-mode input. start() switches stdin to
 * raw mode with bracketed paste and delivers decoded UTF-8 chunks; restore()
 * undoes both (cooked mode, paste off, cursor visible) and is idempotent. A
 * process "exit" hook restores the terminal too, so a crash or process.exit
 * never leaves it raw.
 */
import { writeSync } from "node:fs";

const BRACKETED_PASTE_ON = "\x1b[?2004h";
const BRACKETED_PASTE_OFF = "\x1b[?2004l";
const SHOW_CURSOR = "\x1b[?25h";

export interface TerminalIO {
  readonly columns: number;
  readonly rows: number;
  write(text: string): void;
  /** Raw mode + bracketed paste; input chunks and resizes go to the listeners. */
  start(onInput: (chunk: string) => void, onResize: () => void): void;
  /** Back to the terminal's normal mode; safe to call more than once. */
  restore(): void;
}

function writeAll(fd: number, text: string): void {
  const bytes = Buffer.from(text, "utf8");
  let offset = 0;
  let attempts = 0;
  while (offset < bytes.length) {
    try {
      offset += writeSync(fd, bytes, offset);
      attempts = 0;
    } catch (err) {
      // A non-blocking TTY may refuse for a moment; anything else (or a stuck terminal) drops the text.
      const code = (err as { code?: unknown }).code;
      if (code !== "EAGAIN" || ++attempts > 1000) return;
    }
  }
}

export function openTerminal(): TerminalIO {
  const stdin = process.stdin;
  const stdout = process.stdout;
  let raw = false;
  let detach: (() => void) | undefined;
  const restore = (): void => {
    detach?.();
    detach = undefined;
    if (!raw) return;
    raw = false;
    writeAll(1, `${BRACKETED_PASTE_OFF}${SHOW_CURSOR}`);
    try {
      stdin.setRawMode(false);
    } catch {
      // stdin is gone; nothing left to restore
    }
    stdin.pause();
  };
  return {
    get columns() {
      return stdout.columns > 0 ? stdout.columns : 80;
    },
    get rows() {
      return stdout.rows > 0 ? stdout.rows : 24;
    },
    write: (text) => writeAll(1, text),
    start(onInput, onResize) {
      stdin.setRawMode(true);
      raw = true;
      process.once("exit", restore);
      stdin.setEncoding("utf8");
      const onData = (chunk: string | Buffer): void => onInput(typeof chunk === "string" ? chunk : chunk.toString("utf8"));
      stdin.on("data", onData);
      stdout.on("resize", onResize);
      stdin.resume();
      writeAll(1, BRACKETED_PASTE_ON);
      detach = () => {
        stdin.off("data", onData);
        stdout.off("resize", onResize);
        process.off("exit", restore);
      };
    },
    restore,
  };
}
