/**
 * A scripted stand-in for the model APIs, for tests. `startModelServer()`
 * listens on 127.0.0.1 (random port) and speaks, with the providers' own
 * event names and field shapes:
 *   POST /v1/messages                      Anthropic Messages SSE
 *   POST [/v1]/chat/completions            OpenAI Chat Completions SSE
 *   POST [/v1]/responses                   OpenAI Responses SSE
 * Each request takes the next reply from a FIFO queue filled by `enqueue`
 * (text, tool calls, thinking, HTTP errors with headers such as Retry-After,
 * and stream faults: stall, drop, malformed data, missing terminal event,
 * in-stream error, keepalives only, an oversized event, an endless
 * response), and `raw` replies: any status, headers and body, exactly (a
 * redirect, an HTML proxy page with 200, a compressed or invalid body, odd
 * usage numbers, or a ReadableStream the test feeds, such as a trickle). Any streamed reply may open with a stretch of keepalives
 * (`keepalive`), or hold after its first frame until a promise the test
 * settles (`holdUntil`). An empty queue answers 500 in the provider's error format,
 * with `x-should-retry: false` so that zot does not spend its retry budget
 * (about 30 s) on it.
 * `enqueueFor(match, ...)` keeps a separate queue for requests whose parsed
 * body `match`es (checked, in the order added, before the main queue): for
 * concurrent clients (subagents) whose requests arrive in any order.
 * Every request is recorded (path, headers, parsed JSON body) in `requests`.
 * (resetting-proxy.ts fronts a server and resets the first N requests.)
 */

export interface ScriptUsage {
  /** Uncached input tokens (OpenAI dialects report input + cacheRead as prompt tokens). */
  readonly input?: number;
  readonly output?: number;
  readonly cacheRead?: number;
  readonly cacheWrite?: number;
}

export interface ScriptToolCall {
  readonly id?: string;
  readonly name: string;
  /** JSON text or a value to serialise; streamed in `argChunks` pieces. */
  readonly arguments: string | Readonly<Record<string, unknown>>;
}

/** `comment`: a `: ping` line; `event`: the dialect's keepalive event (Anthropic `ping`, an empty chat chunk, `response.in_progress`). */
export type KeepaliveKind = "comment" | "event";

interface Streamed {
  readonly usage?: ScriptUsage;
  /** Pause between SSE frames, in ms (default 0). */
  readonly delayMs?: number;
  /** After the first frame: keepalives for `forMs`, one every `everyMs` (default 20), then the rest of the reply. */
  readonly keepalive?: { readonly kind: KeepaliveKind; readonly forMs: number; readonly everyMs?: number };
  /** After the first frame (and any `keepalive` stretch): comment keepalives every 200 ms until this settles, then the rest (a slow model the test releases). */
  readonly holdUntil?: Promise<unknown>;
}

export type ScriptedReply =
  | (Streamed & { readonly type: "text"; readonly text: string; readonly chunks?: number; readonly stop?: "end" | "length" })
  | (Streamed & { readonly type: "tool_calls"; readonly text?: string; readonly calls: readonly ScriptToolCall[]; readonly argChunks?: number })
  | (Streamed & {
      readonly type: "thinking";
      readonly thinking: string;
      readonly signature?: string;
      /** Adds a redacted_thinking block (Anthropic) with this data. */
      readonly redacted?: string;
      readonly text: string;
      readonly calls?: readonly ScriptToolCall[];
    })
  | {
      readonly type: "http_error";
      readonly status: number;
      readonly message?: string;
      readonly errorType?: string;
      readonly rawBody?: string;
      /** Extra response headers (`retry-after`, `retry-after-ms`, `x-should-retry`). */
      readonly headers?: Readonly<Record<string, string>>;
    }
  /** Sends headers and the first frames, then nothing until the client gives up. */
  | (Streamed & { readonly type: "stall"; readonly text?: string })
  /** Sends the first frames, then resets the connection. */
  | (Streamed & { readonly type: "drop"; readonly text?: string })
  /** A frame with unparseable JSON in the middle of an otherwise complete stream. */
  | (Streamed & { readonly type: "malformed"; readonly text?: string })
  /** A complete stream minus its terminal event, closed cleanly. */
  | (Streamed & { readonly type: "no_terminal"; readonly text?: string })
  /** The provider's in-stream error event after the first frame. */
  | { readonly type: "stream_error"; readonly errorType?: string; readonly message: string }
  /** The first frame, then keepalives (one every `everyMs`, default 20) until the client goes away. */
  | { readonly type: "keepalive_only"; readonly kind: KeepaliveKind; readonly everyMs?: number }
  /** The first frame, then one event whose data lines (`lineChars` each, default 4 MiB) total `chars` characters. */
  | { readonly type: "oversized_event"; readonly chars: number; readonly lineChars?: number }
  /** A text response that never ends: text deltas of `chunkChars` (default 16 KiB) until the client goes away. */
  | { readonly type: "endless"; readonly chunkChars?: number }
  /**
   * Exactly this status (default 200), these headers (a string body without a content-type gets text/plain) and body: a
   * 3xx with `location`, a 200 HTML page, hand-written SSE, a stream the test feeds. `body` as a function gets the dialect.
   */
  | {
      readonly type: "raw";
      readonly status?: number;
      readonly headers?: Readonly<Record<string, string>>;
      readonly body: string | Uint8Array | ReadableStream<Uint8Array> | ((dialect: Dialect) => string | Uint8Array);
    };

export type Dialect = "anthropic" | "openai-chat" | "openai-responses";

export interface RecordedRequest {
  readonly dialect: Dialect | "unknown";
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  /** Parsed JSON body (undefined when the body was not JSON). */
  readonly body: unknown;
  /** performance.now() when the request arrived. */
  readonly at: number;
}

export interface ModelServer {
  /** http://127.0.0.1:<port> */
  readonly url: string;
  /** Base URL for the Anthropic client (it appends /v1/messages). */
  readonly anthropicBaseUrl: string;
  /** Base URL for the OpenAI clients, ending in /v1. */
  readonly openaiBaseUrl: string;
  enqueue(...replies: ScriptedReply[]): void;
  /** Replies for the requests whose body matches (used before the main queue while they last). */
  enqueueFor(match: (body: unknown) => boolean, ...replies: ScriptedReply[]): void;
  /** Replies not yet consumed. */
  pending(): number;
  /** Characters of SSE frames handed to the network so far by `endless` replies (it pulls as the client reads). */
  endlessCharsSent(): number;
  readonly requests: RecordedRequest[];
  stop(): Promise<void>;
}

interface Turn {
  readonly thinking?: string;
  readonly signature?: string;
  readonly redacted?: string;
  readonly text: string;
  readonly textChunks: number;
  readonly calls: readonly { id: string; name: string; args: string }[];
  readonly argChunks: number;
  readonly usage: Required<ScriptUsage>;
  readonly stop: "end" | "length" | "tool_use";
}

function split(text: string, pieces: number): string[] {
  if (text === "") return [];
  const count = Math.max(1, Math.min(pieces, text.length));
  const size = Math.ceil(text.length / count);
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

function frame(data: unknown, event?: string): string {
  const payload = typeof data === "string" ? data : JSON.stringify(data);
  return `${event ? `event: ${event}\n` : ""}data: ${payload}\n\n`;
}

function turnOf(reply: ScriptedReply): Turn {
  const usage = { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, ...("usage" in reply ? reply.usage : {}) };
  const callsOf = (calls: readonly ScriptToolCall[] | undefined) =>
    (calls ?? []).map((call, i) => ({
      id: call.id ?? `call_${i + 1}`,
      name: call.name,
      args: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments),
    }));
  switch (reply.type) {
    case "text":
      return { text: reply.text, textChunks: reply.chunks ?? 3, calls: [], argChunks: 1, usage, stop: reply.stop ?? "end" };
    case "tool_calls":
      return { text: reply.text ?? "", textChunks: 2, calls: callsOf(reply.calls), argChunks: reply.argChunks ?? 3, usage, stop: "tool_use" };
    case "thinking": {
      const calls = callsOf(reply.calls);
      return {
        thinking: reply.thinking,
        signature: reply.signature ?? "sig-stand-in",
        ...(reply.redacted ? { redacted: reply.redacted } : {}),
        text: reply.text,
        textChunks: 2,
        calls,
        argChunks: 2,
        usage,
        stop: calls.length > 0 ? "tool_use" : "end",
      };
    }
    default:
      return { text: "text" in reply && reply.text ? reply.text : "partial answer", textChunks: 2, calls: [], argChunks: 1, usage, stop: "end" };
  }
}

function anthropicFrames(turn: Turn, model: string): string[] {
  const out: string[] = [];
  const { usage } = turn;
  out.push(
    frame(
      {
        type: "message_start",
        message: {
          id: "msg_stand_in",
          type: "message",
          role: "assistant",
          model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: usage.input, output_tokens: 1, cache_creation_input_tokens: usage.cacheWrite, cache_read_input_tokens: usage.cacheRead },
        },
      },
      "message_start",
    ),
    frame({ type: "ping" }, "ping"),
  );
  let index = 0;
  const block = (start: unknown, deltas: unknown[]) => {
    out.push(frame({ type: "content_block_start", index, content_block: start }, "content_block_start"));
    for (const delta of deltas) out.push(frame({ type: "content_block_delta", index, delta }, "content_block_delta"));
    out.push(frame({ type: "content_block_stop", index }, "content_block_stop"));
    index++;
  };
  if (turn.thinking !== undefined) {
    block({ type: "thinking", thinking: "", signature: "" }, [
      ...split(turn.thinking, 2).map((thinking) => ({ type: "thinking_delta", thinking })),
      { type: "signature_delta", signature: turn.signature },
    ]);
  }
  if (turn.redacted !== undefined) block({ type: "redacted_thinking", data: turn.redacted }, []);
  if (turn.text !== "") block({ type: "text", text: "" }, split(turn.text, turn.textChunks).map((text) => ({ type: "text_delta", text })));
  for (const call of turn.calls) {
    block({ type: "tool_use", id: call.id, name: call.name, input: {} }, [
      { type: "input_json_delta", partial_json: "" },
      ...split(call.args, turn.argChunks).map((partial_json) => ({ type: "input_json_delta", partial_json })),
    ]);
  }
  const stopReason = { end: "end_turn", length: "max_tokens", tool_use: "tool_use" }[turn.stop];
  out.push(
    frame({ type: "message_delta", delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: usage.output } }, "message_delta"),
    frame({ type: "message_stop" }, "message_stop"),
  );
  return out;
}

function chatFrames(turn: Turn, model: string): string[] {
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    frame({ id: "chatcmpl-stand-in", object: "chat.completion.chunk", created: 1, model, choices, ...extra });
  const delta = (d: Record<string, unknown>, finish: string | null = null) => chunk([{ index: 0, delta: d, finish_reason: finish }]);
  const out = [delta({ role: "assistant", content: "" })];
  for (const piece of split(turn.thinking ?? "", 2)) out.push(delta({ reasoning_content: piece }));
  for (const piece of split(turn.text, turn.textChunks)) out.push(delta({ content: piece }));
  turn.calls.forEach((call, index) => {
    out.push(delta({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] }));
    for (const piece of split(call.args, turn.argChunks)) out.push(delta({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  out.push(delta({}, { end: "stop", length: "length", tool_use: "tool_calls" }[turn.stop]));
  const { usage } = turn;
  out.push(
    chunk([], {
      usage: {
        prompt_tokens: usage.input + usage.cacheRead,
        completion_tokens: usage.output,
        total_tokens: usage.input + usage.cacheRead + usage.output,
        prompt_tokens_details: { cached_tokens: usage.cacheRead },
      },
    }),
    "data: [DONE]\n\n",
  );
  return out;
}

function responsesFrames(turn: Turn, model: string): string[] {
  let sequence = 0;
  const out: string[] = [];
  const emit = (type: string, fields: Record<string, unknown>) => out.push(frame({ type, sequence_number: sequence++, ...fields }, type));
  const response = { id: "resp_stand_in", object: "response", model, status: "in_progress", output: [] as unknown[] };
  emit("response.created", { response });
  let index = 0;
  const items: unknown[] = [];
  if (turn.thinking !== undefined) {
    const id = "rs_stand_in";
    emit("response.output_item.added", { output_index: index, item: { type: "reasoning", id, summary: [] } });
    for (const piece of split(turn.thinking, 2)) emit("response.reasoning_summary_text.delta", { item_id: id, output_index: index, summary_index: 0, delta: piece });
    const item = { type: "reasoning", id, summary: [{ type: "summary_text", text: turn.thinking }], encrypted_content: turn.signature };
    emit("response.output_item.done", { output_index: index, item });
    items.push(item);
    index++;
  }
  if (turn.text !== "") {
    const id = "msg_stand_in";
    emit("response.output_item.added", { output_index: index, item: { type: "message", id, role: "assistant", status: "in_progress", content: [] } });
    emit("response.content_part.added", { item_id: id, output_index: index, content_index: 0, part: { type: "output_text", text: "" } });
    for (const piece of split(turn.text, turn.textChunks)) emit("response.output_text.delta", { item_id: id, output_index: index, content_index: 0, delta: piece });
    emit("response.output_text.done", { item_id: id, output_index: index, content_index: 0, text: turn.text });
    const item = { type: "message", id, role: "assistant", status: "completed", content: [{ type: "output_text", text: turn.text, annotations: [] }] };
    emit("response.output_item.done", { output_index: index, item });
    items.push(item);
    index++;
  }
  for (const call of turn.calls) {
    const id = `fc_${call.id}`;
    const base = { type: "function_call", id, call_id: call.id, name: call.name };
    emit("response.output_item.added", { output_index: index, item: { ...base, arguments: "", status: "in_progress" } });
    for (const piece of split(call.args, turn.argChunks)) emit("response.function_call_arguments.delta", { item_id: id, output_index: index, delta: piece });
    emit("response.function_call_arguments.done", { item_id: id, output_index: index, arguments: call.args });
    const item = { ...base, arguments: call.args, status: "completed" };
    emit("response.output_item.done", { output_index: index, item });
    items.push(item);
    index++;
  }
  const { usage } = turn;
  const final = {
    ...response,
    status: turn.stop === "length" ? "incomplete" : "completed",
    output: items,
    incomplete_details: turn.stop === "length" ? { reason: "max_output_tokens" } : null,
    usage: {
      input_tokens: usage.input + usage.cacheRead,
      input_tokens_details: { cached_tokens: usage.cacheRead },
      output_tokens: usage.output,
      total_tokens: usage.input + usage.cacheRead + usage.output,
    },
  };
  emit(turn.stop === "length" ? "response.incomplete" : "response.completed", { response: final });
  return out;
}

function framesFor(dialect: Dialect, turn: Turn, model: string): string[] {
  if (dialect === "anthropic") return anthropicFrames(turn, model);
  if (dialect === "openai-chat") return chatFrames(turn, model);
  return responsesFrames(turn, model);
}

function errorBody(dialect: Dialect, status: number, message: string, errorType?: string): string {
  const defaults: Record<number, string> = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    529: "overloaded_error",
  };
  const type = errorType ?? defaults[status] ?? "api_error";
  if (dialect === "anthropic") return JSON.stringify({ type: "error", error: { type, message } });
  return JSON.stringify({ error: { message, type, param: null, code: null } });
}

function streamErrorFrame(dialect: Dialect, type: string, message: string): string {
  if (dialect === "anthropic") return frame({ type: "error", error: { type, message } }, "error");
  if (dialect === "openai-chat") return frame({ error: { message, type } });
  return frame({ type: "error", code: type, message, param: null, sequence_number: 99 }, "error");
}

const MALFORMED_FRAME = 'data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"oo\n\n';

function dialectOf(path: string): Dialect | undefined {
  if (path.endsWith("/v1/messages")) return "anthropic";
  if (path.endsWith("/chat/completions")) return "openai-chat";
  if (path.endsWith("/responses")) return "openai-responses";
  return undefined;
}

const encoder = new TextEncoder();

function keepaliveFrame(dialect: Dialect, kind: KeepaliveKind): string {
  if (kind === "comment") return ": ping\n\n";
  if (dialect === "anthropic") return frame({ type: "ping" }, "ping");
  if (dialect === "openai-chat") return frame({ id: "chatcmpl-stand-in", object: "chat.completion.chunk", created: 1, choices: [{ index: 0, delta: {}, finish_reason: null }] });
  return frame({ type: "response.in_progress", response: { id: "resp_stand_in", status: "in_progress" } }, "response.in_progress");
}

/** A pull-driven SSE body: `next` gives the following piece (undefined ends the body), paced by the reader. */
function pulledResponse(next: () => Promise<string | undefined>, signal: AbortSignal): Response {
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const piece = signal.aborted ? undefined : await next();
      if (piece === undefined || signal.aborted) controller.close();
      else controller.enqueue(encoder.encode(piece));
    },
  });
  return new Response(body, { headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } });
}

interface Pacing {
  readonly delayMs: number;
  readonly keepalive?: Streamed["keepalive"];
  readonly holdUntil?: Promise<unknown>;
  readonly dialect: Dialect;
}

/** Streams frames with the reply's pacing (and opening keepalives), then ends as the fault says. */
function sseResponse(frames: readonly string[], ending: "close" | "stall" | "drop", pacing: Pacing, signal: AbortSignal): Response {
  const { delayMs, keepalive } = pacing;
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      for (const [index, text] of frames.entries()) {
        if (signal.aborted) return;
        controller.enqueue(encoder.encode(text));
        if (delayMs > 0) await Bun.sleep(delayMs);
        if (index === 0 && keepalive !== undefined) {
          const until = performance.now() + keepalive.forMs;
          while (performance.now() < until && !signal.aborted) {
            controller.enqueue(encoder.encode(keepaliveFrame(pacing.dialect, keepalive.kind)));
            await Bun.sleep(keepalive.everyMs ?? 20);
          }
        }
        if (index === 0 && pacing.holdUntil !== undefined) {
          let held = true;
          const release = (): void => void (held = false);
          pacing.holdUntil.then(release, release);
          while (held && !signal.aborted) {
            controller.enqueue(encoder.encode(keepaliveFrame(pacing.dialect, "comment")));
            await Promise.race([pacing.holdUntil.catch(() => undefined), Bun.sleep(200)]);
          }
        }
      }
      if (ending === "close") controller.close();
      else if (ending === "drop") {
        await Bun.sleep(20); // let the frames leave before the reset
        controller.error(undefined); // resets the connection without Bun logging an error
      } else {
        signal.addEventListener("abort", () => controller.close(), { once: true });
      }
    },
  });
  return new Response(body, { headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } });
}

const ENDLESS_MARK = "ENDLESS-MARK";

function endlessResponse(dialect: Dialect, chunkChars: number, model: string, signal: AbortSignal, stats: StreamStats): Response {
  const frames = framesFor(dialect, turnOf({ type: "text", text: ENDLESS_MARK, chunks: 1 }), model);
  const at = frames.findIndex((text) => text.includes(ENDLESS_MARK));
  const opening = frames.slice(0, at);
  const delta = (frames[at] ?? "").replace(ENDLESS_MARK, "y".repeat(chunkChars));
  return pulledResponse(async () => {
    const piece = opening.shift() ?? delta;
    stats.endlessChars += piece.length;
    return piece;
  }, signal);
}

function keepaliveOnlyResponse(dialect: Dialect, kind: KeepaliveKind, everyMs: number, model: string, signal: AbortSignal): Response {
  let first: string | undefined = framesFor(dialect, turnOf({ type: "text", text: "x" }), model)[0];
  return pulledResponse(async () => {
    if (first !== undefined) {
      const opening = first;
      first = undefined;
      return opening;
    }
    await Bun.sleep(everyMs);
    return keepaliveFrame(dialect, kind);
  }, signal);
}

function oversizedEventResponse(dialect: Dialect, chars: number, lineChars: number, model: string, signal: AbortSignal): Response {
  const pieces = [framesFor(dialect, turnOf({ type: "text", text: "x" }), model)[0] ?? ""];
  for (let left = chars; left > 0; left -= lineChars) pieces.push(`data: ${"z".repeat(Math.min(left, lineChars))}\n`);
  pieces.push("\n");
  return pulledResponse(async () => pieces.shift(), signal);
}

interface StreamStats {
  endlessChars: number;
}

function answer(dialect: Dialect, reply: ScriptedReply, model: string, signal: AbortSignal, stats: StreamStats): Response {
  const pacing: Pacing = {
    dialect,
    delayMs: "delayMs" in reply ? (reply.delayMs ?? 0) : 0,
    ...("keepalive" in reply && reply.keepalive ? { keepalive: reply.keepalive } : {}),
    ...("holdUntil" in reply && reply.holdUntil ? { holdUntil: reply.holdUntil } : {}),
  };
  switch (reply.type) {
    case "http_error":
      return new Response(reply.rawBody ?? errorBody(dialect, reply.status, reply.message ?? `stand-in ${reply.status}`, reply.errorType), {
        status: reply.status,
        headers: { "content-type": "application/json", ...reply.headers },
      });
    case "stream_error": {
      const first = framesFor(dialect, turnOf({ type: "text", text: "x" }), model).slice(0, 1);
      return sseResponse([...first, streamErrorFrame(dialect, reply.errorType ?? "overloaded_error", reply.message)], "close", { dialect, delayMs: 0 }, signal);
    }
    case "keepalive_only":
      return keepaliveOnlyResponse(dialect, reply.kind, reply.everyMs ?? 20, model, signal);
    case "oversized_event":
      return oversizedEventResponse(dialect, reply.chars, reply.lineChars ?? 4 * 1024 * 1024, model, signal);
    case "raw": {
      const body = typeof reply.body === "function" ? reply.body(dialect) : reply.body;
      return new Response(body, { status: reply.status ?? 200, headers: { ...reply.headers } });
    }
    case "endless":
      return endlessResponse(dialect, reply.chunkChars ?? 16 * 1024, model, signal, stats);
    case "stall":
    case "drop":
    case "no_terminal": {
      const frames = framesFor(dialect, turnOf(reply), model).slice(0, -1);
      return sseResponse(frames, reply.type === "no_terminal" ? "close" : reply.type, pacing, signal);
    }
    case "malformed": {
      const frames = framesFor(dialect, turnOf(reply), model);
      const at = Math.min(2, frames.length - 1);
      return sseResponse([...frames.slice(0, at), MALFORMED_FRAME, ...frames.slice(at)], "close", pacing, signal);
    }
    default:
      return sseResponse(framesFor(dialect, turnOf(reply), model), "close", pacing, signal);
  }
}

export function startModelServer(): ModelServer {
  const queue: ScriptedReply[] = [];
  const routes: { readonly match: (body: unknown) => boolean; readonly replies: ScriptedReply[] }[] = [];
  const requests: RecordedRequest[] = [];
  const stats: StreamStats = { endlessChars: 0 };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(request) {
      const path = new URL(request.url).pathname;
      const text = await request.text();
      let body: unknown;
      try {
        body = text === "" ? undefined : JSON.parse(text);
      } catch {
        body = undefined;
      }
      const dialect = dialectOf(path);
      const headers = Object.fromEntries(request.headers.entries());
      requests.push({ dialect: dialect ?? "unknown", method: request.method, path, headers, body, at: performance.now() });
      if (!dialect || request.method !== "POST") return new Response("not found", { status: 404 });
      const route = routes.find((candidate) => candidate.replies.length > 0 && candidate.match(body));
      const reply = route !== undefined ? route.replies.shift() : queue.shift();
      if (!reply) {
        // Not retried (zot honours x-should-retry): an unscripted request fails the run at once, naming the cause.
        return new Response(errorBody(dialect, 500, "model-server: no scripted reply queued"), { status: 500, headers: { "x-should-retry": "false" } });
      }
      const model = body !== null && typeof body === "object" && "model" in body ? String(body.model) : "stand-in";
      return answer(dialect, reply, model, request.signal, stats);
    },
  });
  const url = `http://127.0.0.1:${server.port}`;
  return {
    url,
    anthropicBaseUrl: url,
    openaiBaseUrl: `${url}/v1`,
    enqueue: (...replies) => void queue.push(...replies),
    enqueueFor: (match, ...replies) => void routes.push({ match, replies: [...replies] }),
    pending: () => queue.length + routes.reduce((sum, route) => sum + route.replies.length, 0),
    endlessCharsSent: () => stats.endlessChars,
    requests,
    stop: async () => {
      await server.stop(true);
    },
  };
}
