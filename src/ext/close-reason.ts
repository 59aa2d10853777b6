/**
 * Why an extension connection ended, as a typed value, and the one-line
 * description used in logs, crash reports and failed requests.
 */
import type { ExtensionLoadError } from "./errors.ts";
import { MAX_FRAME_BYTES } from "../common/line-reader.ts";
import type { QueueFailure } from "./outbound-queue.ts";

export type CloseReason =
  | { readonly kind: "exited"; readonly exitCode: number | null; readonly signal: string | null }
  | { readonly kind: "frame_too_large"; readonly bytes: number }
  /** Its stdout ended after hello but the process went on running (it can never answer again). */
  | { readonly kind: "stdout_closed"; readonly graceMs: number }
  | { readonly kind: "queue"; readonly failure: QueueFailure }
  | { readonly kind: "load_failed"; readonly error: ExtensionLoadError }
  | { readonly kind: "shutdown" };

export function describeCloseReason(reason: CloseReason): string {
  switch (reason.kind) {
    case "exited":
      return reason.signal ? `exited (signal ${reason.signal})` : `exited (status ${reason.exitCode ?? "unknown"})`;
    case "frame_too_large":
      return `sent a line over the ${MAX_FRAME_BYTES} byte frame limit`;
    case "stdout_closed":
      return `closed its stdout but was still running ${reason.graceMs} ms later`;
    case "queue":
      return reason.failure.kind === "overflow"
        ? `stopped reading its stdin (outbound queue overflow: ${reason.failure.frames} frames, ${reason.failure.bytes} bytes)`
        : reason.failure.kind === "write_timeout"
          ? `a write to its stdin did not complete within ${reason.failure.timeoutMs} ms`
          : `its stdin pipe broke (${String(reason.failure.error)})`;
    case "load_failed":
      return reason.error.message;
    case "shutdown":
      return "shut down";
  }
}

