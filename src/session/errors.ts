/**
 * SessionError: every failure of the session store (create, open, load,
 * append). `kind` is the stable thing callers switch on; the context names the
 * file and, where known, the 1-based line at fault.
 */
import { ZotError, type ErrorContext } from "../common/errors.ts";

export type SessionErrorKind =
  | "not_found" // the session file does not exist
  | "unreadable" // exists but cannot be read / opened
  | "invalid" // no valid meta row on line 1
  | "exists" // O_EXCL create collided repeatedly
  | "busy" // another zot holds the session's lock
  | "write" // a write or truncate failed
  | "closed"; // append after close()

export class SessionError extends ZotError {
  constructor(
    readonly kind: SessionErrorKind,
    readonly path: string,
    detail: string,
    context: ErrorContext = {},
    options?: { cause?: unknown },
  ) {
    super(`session.${kind}`, `${path}: ${detail}`, { ...context, path }, options);
  }
}
