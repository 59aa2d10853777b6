/**
 * A JSON-RPC 2.0 client over one McpTransport (the MCP base protocol).
 * Outgoing requests get integer ids and wait in a pending map for their
 * response, each with its own timeout (`extend(id)` restarts it: progress
 * keeps a long call alive) and an optional abort signal; the abort sends
 * nothing itself (the caller decides whether to send notifications/cancelled).
 * Incoming messages are validated with valibot: a response settles its
 * pending request (result, or a ZotError carrying the server's code and
 * message); a notification goes to `onNotification`; a request from the
 * server is answered through `onRequest` (a missing handler answers
 * -32601 method not found). Anything else is reported through `onProblem`
 * and dropped. When the transport closes, every pending request fails at
 * once with an error naming the server and the close reason, and later
 * requests fail without being sent; `dispose()` does the same when zot
 * closes the connection itself. Never throws out of a handler.
 */
import * as v from "valibot";
import { ZotError, errorMessage, systemErrorCode } from "../common/errors.ts";
import type { JsonRpcMessage, McpTransport } from "./transport.ts";

/** How long a request whose write met a closed pipe waits for the server's exit to be the reason given. */
const SEND_FAILURE_GRACE_MS = 200;

export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
export const METHOD_NOT_FOUND = -32601;
export const INTERNAL_ERROR = -32603;

const Id = v.union([v.string(), v.number()]);
const ErrorResponseSchema = v.looseObject({
  jsonrpc: v.literal("2.0"),
  id: v.union([Id, v.null()]),
  error: v.looseObject({ code: v.number(), message: v.string(), data: v.optional(v.unknown()) }),
});
const ResultResponseSchema = v.looseObject({ jsonrpc: v.literal("2.0"), id: Id, result: v.unknown() });
const RequestSchema = v.looseObject({ jsonrpc: v.literal("2.0"), id: Id, method: v.string(), params: v.optional(v.unknown()) });
const NotificationSchema = v.looseObject({ jsonrpc: v.literal("2.0"), method: v.string(), params: v.optional(v.unknown()) });

/** Thrown by an onRequest handler to answer with a JSON-RPC error. */
export class JsonRpcErrorReply extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

export interface JsonRpcHandlers {
  /** The server's name, for error messages. */
  readonly name: string;
  readonly onNotification?: (method: string, params: unknown) => void;
  /** Answers a server → client request; throw JsonRpcErrorReply for an error answer. */
  readonly onRequest?: (method: string, params: unknown) => unknown;
  /** A message that was not valid JSON-RPC, or a response nobody waited for. */
  readonly onProblem?: (detail: string) => void;
  /** The transport closed (after the pending requests failed). The transport's only close handler is the client's. */
  readonly onClose?: (reason: string) => void;
}

export interface RequestOptions {
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  /** Told the id before the request is sent (to map a progress token or send a cancellation). */
  readonly onId?: (id: number) => void;
}

interface Pending {
  readonly method: string;
  readonly resolve: (result: unknown) => void;
  readonly reject: (error: ZotError) => void;
  readonly timeoutMs: number;
  timer: ReturnType<typeof setTimeout> | undefined;
  readonly cleanup: () => void;
}

export class JsonRpcClient {
  readonly #transport: McpTransport;
  readonly #handlers: JsonRpcHandlers;
  readonly #pending = new Map<number, Pending>();
  #nextId = 1;
  #closedReason: string | undefined;

  constructor(transport: McpTransport, handlers: JsonRpcHandlers) {
    this.#transport = transport;
    this.#handlers = handlers;
    transport.onMessage((message) => this.#receive(message));
    transport.onClose((reason) => this.#closed(reason));
  }

  /** Why the connection closed; undefined while open. */
  get closedReason(): string | undefined {
    return this.#closedReason;
  }

  request(method: string, params: unknown, options: RequestOptions = {}): Promise<unknown> {
    const name = this.#handlers.name;
    if (this.#closedReason !== undefined) {
      return Promise.reject(new ZotError("mcp_not_running", `mcp server ${name} is not running (${this.#closedReason})`, { server: name, method }));
    }
    if (options.signal?.aborted === true) return Promise.reject(new ZotError("mcp_cancelled", `mcp ${method} to ${name} was cancelled`, { server: name, method }));
    const id = this.#nextId++;
    options.onId?.(id);
    const timeoutMs = options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    return new Promise<unknown>((resolve, reject) => {
      const onAbort = (): void => this.#fail(id, new ZotError("mcp_cancelled", `mcp ${method} to ${name} was cancelled`, { server: name, method }));
      options.signal?.addEventListener("abort", onAbort, { once: true });
      const pending: Pending = {
        method,
        resolve,
        reject,
        timeoutMs,
        timer: undefined,
        cleanup: () => options.signal?.removeEventListener("abort", onAbort),
      };
      this.#pending.set(id, pending);
      this.#arm(id, pending);
      const message: JsonRpcMessage = params === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params };
      this.#transport.send(message).catch((err: unknown) => {
        // A transport's ZotError names the server already (and the URL of an HTTP one).
        const text = err instanceof ZotError ? err.message : `mcp ${method} could not be sent to ${name}: ${errorMessage(err)}`;
        const fail = (): void => this.#fail(id, new ZotError("mcp_send_failed", text, { server: name, method }));
        // A closed pipe means the server has exited: its exit ("exited with code 7") reaches #closed in a moment and
        // says more than EPIPE, so that reason wins when it comes within SEND_FAILURE_GRACE_MS.
        if (systemErrorCode(err) === "EPIPE" || systemErrorCode(err) === "ECONNRESET") setTimeout(fail, SEND_FAILURE_GRACE_MS).unref();
        else fail();
      });
    });
  }

  /** Ends the client (zot is closing the connection): pending requests fail at once with `reason`; later ones fail unsent. */
  dispose(reason: string): void {
    this.#closed(reason);
  }

  /** Restarts the timeout of a pending request (the server reported progress on it). */
  extend(id: number): void {
    const pending = this.#pending.get(id);
    if (pending !== undefined) this.#arm(id, pending);
  }

  /** Sends a notification; failures are ignored (the close handler reports a dead transport). */
  notify(method: string, params?: unknown): void {
    if (this.#closedReason !== undefined) return;
    const message: JsonRpcMessage = params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params };
    this.#transport.send(message).catch(() => undefined);
  }

  #arm(id: number, pending: Pending): void {
    if (pending.timer !== undefined) clearTimeout(pending.timer);
    pending.timer = setTimeout(() => {
      const seconds = pending.timeoutMs / 1000;
      this.#fail(id, new ZotError("mcp_timeout", `mcp server ${this.#handlers.name} did not answer ${pending.method} within ${seconds} s`, { server: this.#handlers.name, method: pending.method }));
    }, pending.timeoutMs);
  }

  #fail(id: number, error: ZotError): void {
    const pending = this.#take(id);
    pending?.reject(error);
  }

  #take(id: number): Pending | undefined {
    const pending = this.#pending.get(id);
    if (pending === undefined) return undefined;
    this.#pending.delete(id);
    if (pending.timer !== undefined) clearTimeout(pending.timer);
    pending.cleanup();
    return pending;
  }

  /** The pending request a response's id names (ids are zot's integers; a string id is read as one). */
  #takeAnswered(rawId: string | number | null): Pending | undefined {
    const id = typeof rawId === "number" ? rawId : Number(rawId);
    return rawId !== null && Number.isSafeInteger(id) ? this.#take(id) : undefined;
  }

  #receive(message: JsonRpcMessage): void {
    try {
      if ("method" in message) {
        if ("id" in message && message.id !== undefined && message.id !== null) this.#answer(message);
        else {
          const parsed = v.safeParse(NotificationSchema, message);
          if (!parsed.success) this.#handlers.onProblem?.(`invalid notification: ${parsed.issues[0]?.message ?? "bad shape"}`);
          else this.#handlers.onNotification?.(parsed.output.method, parsed.output.params);
        }
        return;
      }
      const invalid = (issue: { readonly message: string } | undefined): void =>
        this.#handlers.onProblem?.(`invalid JSON-RPC message: ${issue?.message ?? "neither result nor error"}`);
      // A response nobody waits for (any more) is a late answer to a request that timed out or was cancelled: dropped.
      if ("error" in message) {
        const failed = v.safeParse(ErrorResponseSchema, message);
        if (!failed.success) return invalid(failed.issues[0]);
        const { id, error } = failed.output;
        const pending = this.#takeAnswered(id);
        if (pending === undefined) {
          if (id === null) this.#handlers.onProblem?.(`error without id: ${error.message}`);
          return;
        }
        const { name } = this.#handlers;
        pending.reject(new ZotError("mcp_error", `mcp server ${name} answered ${pending.method} with error ${error.code}: ${error.message}`, { server: name, method: pending.method, code: error.code }));
        return;
      }
      const succeeded = v.safeParse(ResultResponseSchema, message);
      if (!succeeded.success) return invalid(succeeded.issues[0]);
      if (!("result" in message)) return invalid(undefined);
      this.#takeAnswered(succeeded.output.id)?.resolve(succeeded.output.result);
    } catch (err) {
      this.#handlers.onProblem?.(`handler failed: ${errorMessage(err)}`);
    }
  }

  #answer(message: JsonRpcMessage): void {
    const parsed = v.safeParse(RequestSchema, message);
    if (!parsed.success) {
      this.#handlers.onProblem?.(`invalid request from server: ${parsed.issues[0]?.message ?? "bad shape"}`);
      return;
    }
    const { id, method, params } = parsed.output;
    const reply = (body: Record<string, unknown>): void => {
      if (this.#closedReason === undefined) this.#transport.send({ jsonrpc: "2.0", id, ...body }).catch(() => undefined);
    };
    const handler = this.#handlers.onRequest;
    if (handler === undefined) {
      reply({ error: { code: METHOD_NOT_FOUND, message: `method not found: ${method}` } });
      return;
    }
    Promise.resolve()
      .then(() => handler(method, params))
      .then(
        (result) => reply({ result: result ?? {} }),
        (err: unknown) =>
          reply({ error: err instanceof JsonRpcErrorReply ? { code: err.code, message: err.message } : { code: INTERNAL_ERROR, message: errorMessage(err) } }),
      );
  }

  #closed(reason: string): void {
    if (this.#closedReason !== undefined) return;
    this.#closedReason = reason;
    const name = this.#handlers.name;
    for (const id of [...this.#pending.keys()]) {
      const method = this.#pending.get(id)?.method ?? "request";
      this.#fail(id, new ZotError("mcp_server_exited", `mcp server ${name} stopped during ${method}: ${reason}`, { server: name, method }));
    }
    try {
      this.#handlers.onClose?.(reason);
    } catch {
      // a close listener's failure must not stop the client
    }
  }
}
