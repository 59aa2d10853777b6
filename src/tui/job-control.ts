/**
 * Job-control facts for the terminal's suspend (terminal.ts): whether the
 * terminal is in cooked mode now (`stty -a`: a shell had it), whether zot's
 * process group is its terminal's foreground one, and whether Ctrl+Z can
 * hand the terminal to a shell at all (a controlling terminal with zot's
 * group in the foreground). Linux reads /proc/self/stat; elsewhere the
 * answers are the permissive ones (cooked: false; foreground, can stop:
 * true except on Windows).
 */
import { readFileSync } from "node:fs";

/** Whether the terminal on stdin is in canonical (cooked) mode now, as `stty -a` reports it; false when unknown. */
export function ttyCooked(): boolean {
  try {
    const result = Bun.spawnSync(["stty", "-a"], { stdin: "inherit", stdout: "pipe", stderr: "ignore" });
    return /(^|\s)icanon(\s|;|$)/.test(result.stdout.toString());
  } catch {
    return false;
  }
}

/** pgrp, tty_nr and tpgid from /proc/self/stat; undefined without /proc. */
function jobState(): { readonly group: number; readonly tty: number; readonly foreground: number } | undefined {
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { group: Number(fields[2]), tty: Number(fields[4]), foreground: Number(fields[5]) };
  } catch {
    return undefined;
  }
}

/** Whether zot's process group is the terminal's foreground one (/proc/self/stat: pgrp and tpgid); true when unknown. */
export function inForeground(): boolean {
  const state = jobState();
  return state === undefined || !(state.foreground > 0 && state.group > 0 && state.foreground !== state.group);
}

/**
 * Whether Ctrl+Z can hand the terminal to a shell: zot has a controlling terminal and is its foreground process
 * group (a terminal that is only zot's stdin, as in a harness that spawns zot on a PTY, has no job control for it,
 * and a SIGTSTP to the group would stop whatever else is in it). True when unknown (no /proc).
 */
export function canStop(): boolean {
  if (process.platform === "win32") return false;
  const state = jobState();
  return state === undefined || (state.tty !== 0 && state.foreground > 0 && state.foreground === state.group);
}
