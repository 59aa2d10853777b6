/**
 * The signals zot handles and the exit code each ends a run with (128 + the
 * signal number, as a shell reports a process killed by it): SIGINT 130,
 * SIGTERM 143, SIGHUP 129. Shared by the modes (modes/signals.ts), `zot mcp`
 * and `zot upgrade`.
 */
export const SIGNAL_EXIT_CODES = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const;
export type HandledSignal = keyof typeof SIGNAL_EXIT_CODES;
