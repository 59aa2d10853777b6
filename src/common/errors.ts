/**
 * Error values shared by every area. A ZotError carries a stable `code` that
 * callers switch on and a `context` record naming the file, extension or field
 * at fault; its message is the one line a user sees. Nothing here matches on
 * message text.
 */

export type ErrorContext = Readonly<Record<string, string | number | boolean | undefined>>;

export class ZotError extends Error {
  override readonly name = "ZotError";
  constructor(
    readonly code: string,
    message: string,
    readonly context: ErrorContext = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** A user-facing failure of the command line (bad flag, bad argument): exit 2 style. */
export class UsageError extends ZotError {
  constructor(message: string, context: ErrorContext = {}) {
    super("usage", message, context);
  }
}

/** Best-effort one-line text of any thrown value, without a stack trace. */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  if (typeof err === "string") return err;
  try {
    return JSON.stringify(err);
  } catch {
    return String(err);
  }
}

/** The errno-style code of a Node/Bun system error, if any ("ENOENT", ...). */
export function systemErrorCode(err: unknown): string | undefined {
  if (err && typeof err === "object" && "code" in err) {
    const code = (err as { code: unknown }).code;
    return typeof code === "string" ? code : undefined;
  }
  return undefined;
}
