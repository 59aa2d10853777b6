/**
 * The signals zot handles and the exit code each ends a run with (128 + the
 * signal number, as a shell reports a process killed by it): SIGINT 130,
 * SIGTERM 143, SIGHUP 129; and SIGPIPE 141, which zot never installs a
 * handler for (a write to a closed pipe or socket fails with EPIPE instead)
 * but reports when stdout's reader has gone (modes/signals.ts). Shared by the
 * modes, `zot mcp` and `zot upgrade`.
 */
export const SIGNAL_EXIT_CODES = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129, SIGPIPE: 141 } as const;
export type HandledSignal = keyof typeof SIGNAL_EXIT_CODES;
