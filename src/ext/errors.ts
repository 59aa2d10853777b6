/**
 * Typed failures of the extension host. A load error names the extension,
 * its directory, exec, declared language, the original error, the exit
 * status or signal when it exited before hello, and the stderr log path;
 * multi-line detail keeps its line breaks.
 */
import { ZotError } from "../common/errors.ts";

export type LoadFailure =
  | { readonly kind: "exec_not_found"; readonly detail: string }
  | { readonly kind: "spawn_failed"; readonly detail: string }
  /** `stderr`: the last line it wrote there (a missing module, a syntax error…), when it wrote any. */
  | { readonly kind: "exited_before_hello"; readonly exitCode: number | null; readonly signal: string | null; readonly stderr?: string }
  | { readonly kind: "hello_timeout"; readonly timeoutMs: number }
  | { readonly kind: "bad_hello"; readonly detail: string }
  | { readonly kind: "name_mismatch"; readonly helloName: string }
  | { readonly kind: "disconnected"; readonly detail: string };

export interface LoadErrorSubject {
  readonly name: string;
  readonly dir: string;
  readonly exec: string;
  readonly language?: string;
  readonly logPath?: string;
}

function describeLoadFailure(failure: LoadFailure, subject: LoadErrorSubject): string {
  switch (failure.kind) {
    case "exec_not_found":
    case "spawn_failed":
    case "bad_hello":
    case "disconnected":
      return failure.detail;
    case "exited_before_hello": {
      const how = failure.signal ? `killed by signal ${failure.signal}` : `exit status ${failure.exitCode ?? "unknown"}`;
      return `exited before hello (${how})${failure.stderr === undefined ? "" : `; its last stderr line: ${failure.stderr}`}`;
    }
    case "hello_timeout":
      return `sent no hello within ${failure.timeoutMs} ms`;
    case "name_mismatch":
      return `hello names "${failure.helloName}" but extension.json names "${subject.name}"`;
  }
}

export class ExtensionLoadError extends ZotError {
  constructor(
    readonly subject: LoadErrorSubject,
    readonly failure: LoadFailure,
  ) {
    const lines = [
      `extension "${subject.name}" failed to load: ${describeLoadFailure(failure, subject)}`,
      `  directory: ${subject.dir}`,
      `  exec: ${subject.exec}${subject.language ? ` (language: ${subject.language})` : ""}`,
    ];
    if (subject.logPath) lines.push(`  log: ${subject.logPath}`);
    super(`ext.load.${failure.kind}`, lines.join("\n"), {
      extension: subject.name,
      dir: subject.dir,
      exec: subject.exec,
      language: subject.language,
      log: subject.logPath,
      ...(failure.kind === "exited_before_hello" ? { exitCode: failure.exitCode ?? undefined, signal: failure.signal ?? undefined } : {}),
    });
  }
}

/**
 * Why an extension's request ended without a reply. `stalled`, `overloaded`
 * and `too_large` requests were never sent; `cancelled` says whether it was.
 */
export type RequestFailure =
  | { readonly kind: "timeout"; readonly timeoutMs: number }
  | { readonly kind: "disconnected"; readonly detail: string }
  | { readonly kind: "cancelled"; readonly sent: boolean }
  | { readonly kind: "not_delivered" }
  | { readonly kind: "stalled"; readonly waitedMs: number; readonly inFlight: number }
  | { readonly kind: "overloaded"; readonly waiting: number }
  | { readonly kind: "too_large"; readonly bytes: number; readonly limit: number }
  /** The extension answered, but with a reply its schema rejects (`detail` says what is wrong). */
  | { readonly kind: "invalid_reply"; readonly detail: string };

export function describeRequestFailure(failure: RequestFailure): string {
  switch (failure.kind) {
    case "timeout":
      return `timed out after ${failure.timeoutMs} ms`;
    case "disconnected":
      return `extension disconnected (${failure.detail})`;
    case "cancelled":
      return "cancelled";
    case "not_delivered":
      return "request could not be delivered";
    case "stalled":
      return `not sent: waited ${(failure.waitedMs / 1000).toFixed(failure.waitedMs < 10_000 ? 1 : 0)} s for a free request slot while the extension answered none of its ${failure.inFlight} requests in flight`;
    case "overloaded":
      return `not sent: ${failure.waiting} requests are already waiting for this extension`;
    case "too_large":
      return `not sent: the request is ${failure.bytes} bytes, over the ${failure.limit}-byte outbound limit`;
    case "invalid_reply":
      return `answered with an invalid reply (${failure.detail})`;
  }
}

export class ExtensionRequestError extends ZotError {
  constructor(
    readonly extension: string,
    readonly failure: RequestFailure,
  ) {
    super(`ext.request.${failure.kind}`, `${extension}: ${describeRequestFailure(failure)}`, { extension });
  }
}
