/**
 * The signals zot handles and the exit code each ends a run with (128 + the
 * signal number, as a shell reports a process killed by it): SIGINT 130,
 * SIGTERM 143, SIGHUP 129; and SIGPIPE 141, which zot never installs a
 * handler for (a write to a closed pipe or socket fails with EPIPE instead)
 * but reports when stdout's reader has gone (modes/signals.ts). Shared by the
 * modes, `zot mcp` and `zot upgrade`.
 *
 * `ignoredAtStart(signal)`: whether zot was started with SIGHUP or SIGINT
 * ignored (Linux: the SigIgn mask of /proc/self/status, read once, before
 * zot installs any handler for them): `nohup zot -p …` ignores SIGHUP, a
 * non-interactive shell's `zot -p … &` ignores SIGINT. The modes then leave
 * that signal ignored, as any Unix program does, instead of stopping on it.
 * SIGTERM is always handled. Elsewhere: false.
 */
import { readFileSync } from "node:fs";
export const SIGNAL_EXIT_CODES = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129, SIGPIPE: 141 } as const;
export type HandledSignal = keyof typeof SIGNAL_EXIT_CODES;

const SIGNAL_NUMBERS = { SIGHUP: 1, SIGINT: 2 } as const;
let ignoredMask: bigint | undefined;

function startIgnoredMask(): bigint {
  if (ignoredMask !== undefined) return ignoredMask;
  ignoredMask = 0n;
  if (process.platform !== "linux") return ignoredMask;
  try {
    const line = /^SigIgn:\s*([0-9a-f]+)$/m.exec(readFileSync("/proc/self/status", "utf8"));
    if (line?.[1] !== undefined) ignoredMask = BigInt(`0x${line[1]}`);
  } catch {
    // no /proc: nothing counts as ignored
  }
  return ignoredMask;
}

/** zot was started with `signal` ignored (see the header); call before installing a handler for it. */
export function ignoredAtStart(signal: HandledSignal): boolean {
  if (signal !== "SIGHUP" && signal !== "SIGINT") return false;
  return (startIgnoredMask() & (1n << BigInt(SIGNAL_NUMBERS[signal] - 1))) !== 0n;
}
