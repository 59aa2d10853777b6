/**
 * The process's controlling terminal (stdin/stdout) for the Renderer.
 *
 * write() is one complete synchronous write to fd 1 (so output order is call
 * order), looping over EAGAIN when stdout is non-blocking; a terminal that
 * refuses for 1000 attempts in a row has the rest dropped. size is stdout's
 * (80×24 when unknown). reflow is the resize model (frame.ts ReflowModel):
 * "xterm.js" for TERM_PROGRAM vscode / Hyper, else "cursor-line";
 * ZOT_TUI_REFLOW overrides.
 *
 * start(): raw mode, bracketed paste, and the kitty keyboard protocol query
 * (`CSI ? u`) sent together with DA1 (`CSI c`): every terminal answers DA1,
 * so when its answer comes without a kitty answer before it, kitty is off.
 * If the kitty answer arrives, flags 1 (disambiguate) are pushed
 * (`CSI > 1 u`) and kittyKeyboard becomes true. Input is decoded by a
 * KeyDecoder; a lone ESC is delivered as Escape after ESCAPE_TIMEOUT_MS
 * without more input (2 ms with kitty, where Esc is never a lone byte);
 * a paste is delivered PASTE_SETTLE_MS after the input following it goes
 * quiet, or at once when a stray paste end shows that an early end marker
 * was part of the pasted text (keys.ts: paste injection).
 * Resizes call onResize: once per stdout "resize" event, and once for a
 * SIGWINCH that brings no such event within SIGWINCH_SETTLE_MS (a window
 * sized away and back before the signal was handled: the screen was
 * re-wrapped in between).
 *
 * probeBackground(ms), before start(): raw mode, then OSC 11 (`ESC ] 11 ; ?`)
 * and DA1 are sent; it resolves with the OSC 11 answer's payload (e.g.
 * `rgb:ffff/ffff/ffff`) once DA1 is answered (terminals answer in order, so
 * a DA1 answer without an OSC 11 one before it means none is coming:
 * undefined), or with what came within `ms`. Input
 * that arrives meanwhile, minus those two answers, is kept for start(); a
 * late answer is consumed by the KeyDecoder like every terminal reply.
 *
 * suspend(back) (Ctrl+Z) gives the terminal back as restore() does, stops
 * zot's process group with SIGTSTP (as the terminal's own Ctrl+Z would; the
 * shell takes over until `fg`), and once it runs in the foreground again
 * takes raw mode, paste and the kitty flags back, re-reads the size and
 * calls `back`. Continued in the background (`bg`, `kill %1`, which sends
 * SIGCONT after its signal) it waits for the SIGCONT of a later `fg`, and
 * restore() then touches nothing (zot may be exiting: setting the modes
 * from the background would stop it again with SIGTTOU). It resolves with
 * whether the process was stopped (a SIGCONT came): without a job-control
 * shell (an orphaned process group, e.g. zot run directly as a tmux pane's
 * command) the kernel ignores SIGTSTP and nothing stops. canSuspend() is
 * false (and suspend() stops nothing) on Windows and where the terminal is
 * not zot's controlling one with zot's group in its foreground.
 * A SIGTSTP from outside (`kill -TSTP`) is caught while started and passed
 * to onStopRequest (the chat screen suspends as for Ctrl+Z). A stop zot did
 * not ask for (SIGSTOP) is seen
 * when it ends (SIGCONT): when the terminal is in cooked mode then (`stty
 * -a`: a job-control shell had it meanwhile), raw mode, paste and the kitty
 * flags (set, not pushed again) are taken back, the size re-read, and
 * onContinue called; still in raw mode, nobody touched it and nothing is done.
 *
 * restore() (idempotent) pops the kitty flags, turns paste off, ends any
 * synchronized frame, shows the cursor and returns to cooked mode. It also
 * runs on process exit (normal, process.exit, an uncaught error: all reach
 * "exit"), and on SIGTERM / SIGHUP / SIGQUIT / SIGINT when nobody else
 * listens for that signal: then the signal is raised again after the restore
 * so the process ends as it would have.
 */
import { writeSync } from "node:fs";
import { ignoreSignal, SIGTTOU } from "../common/libc.ts";
import { addStoppedTime } from "../common/stopped-time.ts";
import type { ReflowModel } from "./frame.ts";
import { canStop, inForeground, ttyCooked } from "./job-control.ts";
import { KeyDecoder } from "./keys.ts";
import type { TerminalOutput, TerminalSize } from "./renderer.ts";
import type { Key } from "./types.ts";

export const ESCAPE_TIMEOUT_MS = 30;
/** Quiet time after a paste (and the input right after it) before the paste is delivered (keys.ts pendingPaste). */
export const PASTE_SETTLE_MS = 50;
const KITTY_ESCAPE_TIMEOUT_MS = 2;
/** How long suspend() waits, once running again, for the SIGCONT that says it was stopped. */
const SIGCONT_WAIT_MS = 100;
/** How long a SIGWINCH waits for stdout's "resize" event before it is reported on its own. */
const SIGWINCH_SETTLE_MS = 50;
const PASTE_ON = "\x1b[?2004h";
const PASTE_OFF = "\x1b[?2004l";
const KITTY_QUERY = "\x1b[?u";
const DA1_QUERY = "\x1b[c";
const KITTY_PUSH = "\x1b[>1u";
/** Sets the current kitty flags to 1 without pushing (after an outside stop the entry pushed at start may still be there). */
const KITTY_SET = "\x1b[=1;1u";
const KITTY_POP = "\x1b[<u";
const SHOW_CURSOR = "\x1b[?25h";
const SYNC_OFF = "\x1b[?2026l";
const KITTY_REPLY = /\x1b\[\?\d+u/;
const DA1_REPLY = /\x1b\[\?[\d;]*c/;
const OSC11_QUERY = "\x1b]11;?\x1b\\";
const OSC11_REPLY = /\x1b\]11;([^\x07\x1b]*)(?:\x07|\x1b\\)/;
const SIGNALS = ["SIGTERM", "SIGHUP", "SIGQUIT", "SIGINT"] as const;

export interface TerminalInput {
  onKey(key: Key): void;
  onResize(): void;
  /** zot runs again after a stop it did not ask for (SIGSTOP): the terminal was taken back; redraw. */
  onContinue?(): void;
  /** A SIGTSTP came from outside (`kill -TSTP`): suspend as Ctrl+Z does (suspend()), so the terminal is handed over clean. */
  onStopRequest?(): void;
}

export interface Terminal extends TerminalOutput {
  /** Raw mode, bracketed paste, kitty keyboard (query; flags 1 pushed if answered); keys decoded and delivered. */
  start(input: TerminalInput): void;
  /** Idempotent: pop kitty flags, paste off, cursor visible, cooked mode. */
  restore(): void;
  /** Ctrl+Z: terminal restored, process group stopped; `back` runs once the terminal is taken back (in the foreground again; at once when it cannot stop); resolves with whether it stopped. */
  suspend(back: () => void): Promise<boolean>;
  /** Whether suspend() can stop zot for a shell: it is the foreground process group of its controlling terminal. */
  canSuspend(): boolean;
  /** Before start(): asks the background colour (OSC 11); its payload, or undefined without an answer within `timeoutMs`. */
  probeBackground(timeoutMs: number): Promise<string | undefined>;
  /** The terminal answered the kitty keyboard query. */
  readonly kittyKeyboard: boolean;
}

/** Writes all of `text` to `fd` synchronously, retrying while a non-blocking descriptor says EAGAIN. */
export function writeAllSync(fd: number, text: string): void {
  const bytes = Buffer.from(text, "utf8");
  let offset = 0;
  let attempts = 0;
  while (offset < bytes.length) {
    try {
      offset += writeSync(fd, bytes, offset);
      attempts = 0;
    } catch (error) {
      // A non-blocking TTY may refuse for a moment; anything else (or a stuck terminal) drops the rest.
      const code = (error as { code?: unknown }).code;
      if (code !== "EAGAIN" || ++attempts > 1000) return;
    }
  }
}

function reflowModel(env: NodeJS.ProcessEnv): ReflowModel {
  const forced = env.ZOT_TUI_REFLOW;
  if (forced === "xterm.js" || forced === "cursor-line") return forced;
  const program = env.TERM_PROGRAM ?? "";
  return program === "vscode" || program === "Hyper" ? "xterm.js" : "cursor-line";
}

export function processTerminal(): Terminal {
  const stdin = process.stdin;
  const stdout = process.stdout;
  const reflow = reflowModel(process.env);
  let started = false;
  let kitty = false;
  /**
   * The terminal is the shell's (after suspend(), or an outside stop seen while zot is in the background): raw mode
   * and the rest are taken back, and `back` called, once zot runs in the foreground again; restore() leaves it alone.
   */
  let handedOver: { readonly back: () => void } | undefined;
  /** start()'s SIGTSTP listener; suspend() takes it off while it stops the group (else the signal would be caught, not stop). */
  let stopListener: (() => void) | undefined;
  let detach: (() => void) | undefined;
  /** Input that arrived during probeBackground (its answers removed), for start(). */
  let early = "";
  let probing = false;

  const restore = (): void => {
    detach?.();
    detach = undefined;
    if (probing && !started) {
      probing = false;
      if (stdin.isTTY) stdin.setRawMode(false);
      stdin.pause();
    }
    if (!started) return;
    started = false;
    if (handedOver !== undefined) {
      // The shell has the terminal (zot ends while suspended: `kill %1`): nothing of zot's is left in it to undo.
      // Bun still resets the terminal's modes as the process exits, which from the background would stop zot again
      // (SIGTTOU, "Stopped (tty output)") instead of letting it end: the signal is ignored from here on.
      handedOver = undefined;
      if (!inForeground()) ignoreSignal(SIGTTOU);
      stdin.pause();
      return;
    }
    writeAllSync(1, `${SYNC_OFF}${kitty ? KITTY_POP : ""}${PASTE_OFF}${SHOW_CURSOR}`);
    try {
      if (stdin.isTTY) stdin.setRawMode(false);
    } catch {
      // stdin is gone: nothing left to restore
    }
    stdin.pause();
  };

  const start = (input: TerminalInput): void => {
    if (started) return;
    started = true;
    const decoder = new KeyDecoder();
    let escapeTimer: ReturnType<typeof setTimeout> | undefined;
    /** Replies seen while the kitty / DA1 queries are outstanding (bounded). */
    let replies: string | undefined = "";

    const deliver = (keys: readonly Key[]): void => {
      for (const key of keys) input.onKey(key);
    };
    const onData = (chunk: string | Buffer): void => {
      const text = typeof chunk === "string" ? chunk : chunk.toString("utf8");
      if (replies !== undefined) {
        replies = (replies + text).slice(-256);
        if (!kitty && KITTY_REPLY.test(replies)) {
          kitty = true;
          writeAllSync(1, KITTY_PUSH);
        }
        if (DA1_REPLY.test(replies)) replies = undefined;
      }
      if (escapeTimer !== undefined) clearTimeout(escapeTimer);
      escapeTimer = undefined;
      deliver(decoder.feed(text));
      if (decoder.pendingPaste()) {
        escapeTimer = setTimeout(() => {
          escapeTimer = undefined;
          deliver(decoder.flushPaste());
          if (decoder.pendingPaste() || decoder.pendingEscape()) onData("");
        }, PASTE_SETTLE_MS);
      } else if (decoder.pendingEscape()) {
        escapeTimer = setTimeout(
          () => {
            escapeTimer = undefined;
            deliver(decoder.flushEscape());
          },
          kitty ? KITTY_ESCAPE_TIMEOUT_MS : ESCAPE_TIMEOUT_MS,
        );
      }
    };
    // stdout's "resize" event reports a new size (Bun emits it after the SIGWINCH listeners ran, with
    // stdout's size updated; a listener still sees the old one). A SIGWINCH that brings no "resize"
    // event within SIGWINCH_SETTLE_MS is reported all the same: the window went to another size and
    // back before the signal was handled, and the terminal re-wrapped (xterm.js: cut) the screen at
    // the size in between, so the renderer must redraw at the size it already knows.
    let fallback: ReturnType<typeof setTimeout> | undefined;
    const onStdoutResize = (): void => {
      if (fallback !== undefined) clearTimeout(fallback);
      fallback = undefined;
      input.onResize();
    };
    const onResize = (): void => {
      if (fallback !== undefined) return;
      fallback = setTimeout(() => {
        fallback = undefined;
        input.onResize();
      }, SIGWINCH_SETTLE_MS);
    };
    // Stopped from outside (SIGSTOP, a SIGTSTP sent by kill) and continued: a job-control shell had the terminal
    // meanwhile and set it back to cooked mode, so raw mode, paste and the kitty flags are taken back and the screen
    // redrawn.
    const onContinue = (): void => {
      if (handedOver !== undefined) {
        takeBack();
        return;
      }
      // Still in raw mode: nobody had the terminal meanwhile (a plain SIGSTOP / SIGCONT), nothing to take back.
      if (!ttyCooked()) return;
      if (!inForeground()) {
        // Continued in the background (`bg`, or `kill %1`, which sends SIGCONT after the signal): wait for `fg`.
        handedOver = { back: () => input.onContinue?.() };
        return;
      }
      try {
        // setRawMode(true) does nothing while the stream believes it is raw already: off first, so it is set again.
        if (stdin.isTTY) stdin.setRawMode(false).setRawMode(true);
      } catch {
        // stdin is gone
      }
      writeAllSync(1, `${PASTE_ON}${kitty ? KITTY_SET : ""}`);
      (stdout as { _refreshSize?: () => void })._refreshSize?.();
      input.onContinue?.();
    };
    const onSignal = (signal: NodeJS.Signals): void => {
      // Only when nobody else handles it: restore, then end the way the signal would have.
      if (process.listenerCount(signal) > 1) return;
      restore();
      process.kill(process.pid, signal);
    };

    if (stdin.isTTY) stdin.setRawMode(true);
    stdin.setEncoding("utf8");
    stdin.on("data", onData);
    stdout.on("resize", onStdoutResize);
    process.on("SIGWINCH", onResize);
    process.on("SIGCONT", onContinue);
    const onStop = (): void => input.onStopRequest?.();
    if (process.platform !== "win32") {
      stopListener = onStop;
      process.on("SIGTSTP", onStop);
    }
    process.once("exit", restore);
    for (const signal of SIGNALS) process.on(signal, onSignal);
    stdin.resume();
    writeAllSync(1, `${PASTE_ON}${KITTY_QUERY}${DA1_QUERY}`);
    if (early !== "") onData(early.slice(-4096));
    early = "";
    detach = () => {
      if (escapeTimer !== undefined) clearTimeout(escapeTimer);
      if (fallback !== undefined) clearTimeout(fallback);
      stdin.off("data", onData);
      stdout.off("resize", onStdoutResize);
      process.off("SIGWINCH", onResize);
      process.off("SIGCONT", onContinue);
      if (stopListener !== undefined) process.off("SIGTSTP", stopListener);
      stopListener = undefined;
      process.off("exit", restore);
      for (const signal of SIGNALS) process.off(signal, onSignal);
    };
  };

  const setRaw = (on: boolean): void => {
    try {
      if (stdin.isTTY) stdin.setRawMode(on);
    } catch {
      // stdin is gone: nothing to set
    }
  };

  /** After suspend(): once zot is the terminal's foreground again, raw mode, paste and the kitty flags come back. */
  const takeBack = (): void => {
    const held = handedOver;
    if (held === undefined || !started || !inForeground()) return;
    handedOver = undefined;
    setRaw(true);
    writeAllSync(1, `${PASTE_ON}${kitty ? KITTY_PUSH : ""}`);
    // The window may have been resized while the shell had it: no SIGWINCH reaches a stopped process group.
    (stdout as { _refreshSize?: () => void })._refreshSize?.();
    held.back();
  };

  const suspend = (back: () => void): Promise<boolean> => {
    if (!started || handedOver !== undefined || !canStop()) {
      back();
      return Promise.resolve(false);
    }
    writeAllSync(1, `${SYNC_OFF}${kitty ? KITTY_POP : ""}${PASTE_OFF}${SHOW_CURSOR}`);
    setRaw(false);
    handedOver = { back };
    let continued = false;
    const onContinue = (): void => {
      continued = true;
    };
    process.on("SIGCONT", onContinue);
    const stoppedAt = performance.now();
    const listener = stopListener;
    if (listener !== undefined) process.off("SIGTSTP", listener);
    try {
      // The whole process group, as the terminal's Ctrl+Z would: the kernel stops it here (until `fg`), or ignores
      // the signal when no job-control shell is there to continue it. (With no listener left, SIGTSTP stops.)
      process.kill(0, "SIGTSTP");
    } catch {
      // not permitted: nothing stopped
    } finally {
      if (listener !== undefined && stopListener === listener) process.on("SIGTSTP", listener);
    }
    // Timeouts that wait for the other side (the model stream's stall deadlines) do not count the stop.
    addStoppedTime(performance.now() - stoppedAt);
    // Running again: in the foreground (`fg`, or nothing stopped) the terminal is taken back now; in the background
    // (`bg`, `kill %1`) at the SIGCONT of a later `fg` (start()'s listener).
    takeBack();
    // The SIGCONT handler runs from the event loop, after this: wait a moment for it.
    return new Promise((resolve) =>
      setTimeout(() => {
        process.off("SIGCONT", onContinue);
        resolve(continued);
      }, SIGCONT_WAIT_MS),
    );
  };

  const probeBackground = (timeoutMs: number): Promise<string | undefined> => {
    if (started || probing || !stdin.isTTY) return Promise.resolve(undefined);
    probing = true;
    stdin.setRawMode(true);
    stdin.setEncoding("utf8");
    return new Promise((resolve) => {
      let seen = "";
      const finish = (payload: string | undefined): void => {
        clearTimeout(timer);
        stdin.off("data", onData);
        stdin.pause();
        early = seen.replace(OSC11_REPLY, "").replace(DA1_REPLY, "");
        resolve(payload);
      };
      const onData = (chunk: string | Buffer): void => {
        seen = (seen + (typeof chunk === "string" ? chunk : chunk.toString("utf8"))).slice(-4096);
        // DA1's answer comes after OSC 11's (if any): waiting for it keeps it out of start()'s kitty detection.
        if (DA1_REPLY.test(seen)) finish(OSC11_REPLY.exec(seen)?.[1]);
      };
      const timer = setTimeout(() => finish(OSC11_REPLY.exec(seen)?.[1]), timeoutMs);
      stdin.on("data", onData);
      stdin.resume();
      writeAllSync(1, `${OSC11_QUERY}${DA1_QUERY}`);
    });
  };

  return {
    probeBackground,
    get size(): TerminalSize {
      return { columns: stdout.columns > 0 ? stdout.columns : 80, rows: stdout.rows > 0 ? stdout.rows : 24 };
    },
    reflow,
    write: (data) => writeAllSync(1, data),
    start,
    restore,
    suspend,
    canSuspend: canStop,
    get kittyKeyboard() {
      return kitty;
    },
  };
}
