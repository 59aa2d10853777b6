/**
 * Print mode's progress line: stdout stays the answer alone, but a person
 * watching a terminal learns that zot is still at work. Only when stderr is
 * a terminal that understands cursor control (TERM set, and not "dumb") and the
 * run is not in CI (`CI` set to anything but "", "0" or "false"); otherwise
 * startPrintProgress returns undefined and nothing changes. Once PROGRESS_AFTER_MS (3 s) passed with no stderr text from
 * zot, one line is drawn on stderr and redrawn in place every second
 * (`\r`, erase line): `zot: waiting for the model… 7s`, or while a tool
 * runs `zot: running bash… 12s` (the newest running tool; the seconds count
 * from the start of the run). The line is erased before any other stderr
 * text (common/stderr.ts interjection; the quiet time restarts there), by
 * stop() (call it before the answer goes to stdout and at exit), and it is
 * never longer than the terminal is wide (no wrapped rows left behind; a
 * terminal that reports 0 columns, as a PTY nobody sized does, counts as 80).
 * The timer never keeps zot alive.
 */
import { writeSync } from "node:fs";
import type { AgentEvent } from "../agent/events.ts";
import { setStderrInterjection } from "../common/stderr.ts";
import { stderrIsTerminal } from "../common/terminal-text.ts";
import { inCi } from "../common/ci.ts";

export const PROGRESS_AFTER_MS = 3_000;
const REDRAW_MS = 1_000;
const ERASE_LINE = "\r\x1b[2K";
const MAX_TOOL_NAME = 40;

export interface PrintProgress {
  /** Every agent event of the run (tool starts and ends name the current tool). */
  event(event: AgentEvent): void;
  /** Erases the line and ends the timer; idempotent. */
  stop(): void;
}

/** A tool name as shown on the line: printable characters only, bounded. */
function shownName(name: string): string {
  const printable = name.replace(/[\x00-\x1f\x7f-\x9f]/g, "");
  return printable.length > MAX_TOOL_NAME ? `${printable.slice(0, MAX_TOOL_NAME - 1)}…` : printable;
}

function writeStderrRaw(text: string): void {
  try {
    writeSync(2, text);
  } catch {
    // a stderr that went away is not worth failing the run over
  }
}

/** The progress line for this run, or undefined when stderr is no terminal (or a dumb or unnamed one) or this is CI. */
export function startPrintProgress(env: Readonly<Record<string, string | undefined>> = process.env): PrintProgress | undefined {
  if (inCi(env) || !env.TERM || env.TERM === "dumb" || !stderrIsTerminal()) return undefined;
  const startedAt = Date.now();
  let quietSince = startedAt;
  let shown = false;
  let stopped = false;
  const running = new Map<string, string>();
  /** Names of the calls announced (tool_call), until their result. */
  const names = new Map<string, string>();

  const erase = (): void => {
    if (!shown) return;
    shown = false;
    writeStderrRaw(ERASE_LINE);
  };
  const draw = (): void => {
    if (stopped || Date.now() - quietSince < PROGRESS_AFTER_MS) return;
    const tool = [...running.values()].at(-1);
    const seconds = Math.floor((Date.now() - startedAt) / 1000);
    const what = tool === undefined ? "waiting for the model" : `running ${shownName(tool)}`;
    const width = Math.max(20, (process.stderr.columns || 80) - 1);
    const line = `zot: ${what}… ${seconds}s`;
    writeStderrRaw(`${ERASE_LINE}${line.length > width ? `${line.slice(0, width - 1)}…` : line}`);
    shown = true;
  };
  const timer = setInterval(draw, REDRAW_MS);
  timer.unref();
  setStderrInterjection(() => {
    erase();
    quietSince = Date.now();
  });

  return {
    event(event) {
      // A call counts as running once it has started (tool_start), not while it waits behind another.
      if (event.type === "tool_call") names.set(event.id, event.name);
      else if (event.type === "tool_start") running.set(event.id, names.get(event.id) ?? "a tool");
      else if (event.type === "tool_result") {
        running.delete(event.id);
        names.delete(event.id);
      }
      else if (event.type === "done" || event.type === "error") {
        running.clear();
        names.clear();
      }
    },
    stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      setStderrInterjection(undefined);
      erase();
    },
  };
}
