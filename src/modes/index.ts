/**
 * Mode dispatch: picks print, JSON or interactive from the parsed flags.
 * Modes own all I/O; the agent session does the work.
 */
import { ZotError } from "../common/errors.ts";
import type { MainFlags } from "../cli/flags.ts";

export async function runMode(flags: MainFlags): Promise<number> {
  if (flags.rpc) throw new ZotError("mode.unavailable", "rpc mode is not available in this build");
  if (!flags.print && !flags.json) {
    if (!process.stdin.isTTY || !process.stdout.isTTY) {
      throw new ZotError(
        "mode.no_tty",
        "interactive mode needs a terminal on stdin and stdout; use -p \"prompt\" or --json \"prompt\" for scripts",
      );
    }
    throw new ZotError("mode.unavailable", "the interactive TUI is not available in this build yet; use -p \"prompt\"");
  }
  throw new ZotError("mode.unavailable", "print and JSON modes are not available in this build yet");
}
