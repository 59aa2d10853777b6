/**
 * Unit tests of the TypeScript SDK's mechanisms against an in-memory host
 * (harness.ts): the line reader (frames split anywhere, multi-byte
 * characters split, a 20 MiB frame in 64 KiB chunks, an oversized line
 * skipped), write backpressure (a slow reader: writes wait for drain, arrive
 * in order), ordering (a panel's keys strictly in order with async handlers
 * of random duration; a stuck panel handler does not hold up a tool call),
 * cancellation (tool_cancel before the handler starts; no result sent),
 * failures (a throwing interceptor: allow, or block with onTimeout deny; an
 * oversized result replaced by an error result), call_tool (refused without
 * the host capability; parent_id from a tool handler; cancel), EOF.
 */
import { expect, test } from "bun:test";
import { Writable } from "node:stream";
import { LineReader, MAX_OUTBOUND_FRAME_BYTES, textResult } from "../../../sdk/typescript/src/index.ts";
import { harness, type Frame } from "./harness.ts";

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

test("the line reader: split at every byte, a split multi-byte character, CRLF, a huge line, an oversized line skipped", () => {
  const lines: string[] = [];
  const oversized: number[] = [];
  const reader = new LineReader((line) => lines.push(line), (bytes) => oversized.push(bytes), 1024);
  const bytes = new TextEncoder().encode('{"a":"é😀"}\r\n{"b":2}\n\n');
  for (const byte of bytes) reader.push(new Uint8Array([byte]));
  expect(lines).toEqual(['{"a":"é😀"}', '{"b":2}']);
  reader.push(new TextEncoder().encode("x".repeat(3000)));
  reader.push(new TextEncoder().encode("y\nafter\nlast"));
  reader.finish();
  expect(oversized).toEqual([3001]);
  expect(lines.slice(2)).toEqual(["after", "last"]);

  const big: string[] = [];
  const huge = new LineReader((line) => big.push(line), () => {}, 64 * 1024 * 1024);
  const chunk = new TextEncoder().encode("z".repeat(64 * 1024));
  for (let i = 0; i < 320; i++) huge.push(chunk);
  huge.push(new TextEncoder().encode("\n"));
  expect(big.length).toBe(1);
  expect(big[0]!.length).toBe(320 * 64 * 1024);
});

test("a host frame split across chunks and a huge one (8 MiB tool args) reach the handler whole", async () => {
  const h = harness((ext) => ext.tool("size", "", { type: "object" }, (args) => textResult(String(String(args.blob).length))));
  await h.handshake();
  const frame = JSON.stringify({ type: "tool_call", id: "t1", name: "size", args: { blob: "q".repeat(8 * 1024 * 1024) } }) + "\n";
  for (let at = 0; at < frame.length; at += 100_003) h.write(frame.slice(at, at + 100_003));
  const result = await h.next("tool_result");
  expect(result).toEqual({ type: "tool_result", id: "t1", content: [{ type: "text", text: String(8 * 1024 * 1024) }] });
  h.end();
  await h.done;
});

test("writes respect backpressure: a slow reader gets every frame, in order, and the stream's buffer stays bounded", async () => {
  const got: string[] = [];
  let maxBuffered = 0;
  const slow = new Writable({
    highWaterMark: 1024,
    write(chunk: Buffer, _encoding, callback) {
      got.push(...chunk.toString("utf8").split("\n").filter(Boolean));
      setTimeout(callback, 1);
    },
  });
  const h = harness(() => {}, { output: slow });
  await Bun.sleep(5);
  const sends: Promise<boolean>[] = [];
  for (let i = 0; i < 300; i++) {
    sends.push(h.ext.notify("info", `note ${i} ${"p".repeat(200)}`));
    maxBuffered = Math.max(maxBuffered, slow.writableLength);
  }
  await Promise.all(sends);
  maxBuffered = Math.max(maxBuffered, slow.writableLength);
  // The SDK waited for drain: never more than one frame beyond the high-water mark was queued in the stream.
  expect(maxBuffered).toBeLessThan(1024 + 300);
  const notes = got.map((line) => JSON.parse(line) as Frame).filter((frame) => frame.type === "notify");
  expect(notes.map((frame) => String(frame.message).split(" ")[1])).toEqual(Array.from({ length: 300 }, (_, i) => String(i)));
  h.end();
  await h.done;
});

test("panel keys run strictly in order with async handlers, and a stuck panel does not hold up a tool call", async () => {
  const seen: string[] = [];
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const h = harness((ext) => {
    ext.panel("p", { onKey: async (key) => {
      await sleep(Math.random() * 4);
      seen.push(key.text ?? key.key);
    } });
    ext.panel("stuck", { onKey: () => gate });
    ext.tool("quick", "", { type: "object" }, () => "quick done");
  });
  await h.handshake();
  const text = "abcdefghijklmnopqrstuvwxyz";
  h.write([...text].map((c) => JSON.stringify({ type: "panel_key", panel_id: "p", key: "rune", text: c }) + "\n").join(""));
  h.send({ type: "panel_key", panel_id: "stuck", key: "enter" });
  h.send({ type: "tool_call", id: "q1", name: "quick", args: {} });
  expect((await h.next("tool_result")).content).toEqual([{ type: "text", text: "quick done" }]);
  const until = Date.now() + 5_000;
  while (seen.length < text.length && Date.now() < until) await sleep(5);
  expect(seen.join("")).toBe(text);
  release();
  h.end();
  await h.done;
});

test("tool_cancel in the same read as its tool_call aborts the handler's signal; no result is sent; unknown ids are ignored", async () => {
  let aborted = false;
  const h = harness((ext) => ext.tool("wait", "", { type: "object" }, (_args, ctx) => {
    return new Promise((resolve) => ctx.signal.addEventListener("abort", () => {
      aborted = true;
      resolve("stopped");
    }));
  }));
  await h.handshake();
  h.write(JSON.stringify({ type: "tool_call", id: "w1", name: "wait", args: {} }) + "\n" + JSON.stringify({ type: "tool_cancel", id: "w1" }) + "\n" + JSON.stringify({ type: "tool_cancel", id: "nope" }) + "\n");
  const until = Date.now() + 5_000;
  while (!h.logs.some((line) => line.includes("(w1) was cancelled")) && Date.now() < until) await sleep(5);
  expect(aborted).toBe(true);
  expect(h.frames.filter((frame) => frame.type === "tool_result")).toEqual([]);
  h.end();
  await h.done;
});

test("a throwing interceptor replies allow, or block when the extension declared onTimeout deny; an oversized result becomes an error result", async () => {
  for (const onTimeout of ["allow", "deny"] as const) {
    const h = harness((ext) => {
      ext.interceptToolCall(() => {
        throw new Error("guard broke");
      });
      ext.tool("huge", "", { type: "object" }, () => "h".repeat(MAX_OUTBOUND_FRAME_BYTES));
    }, { onTimeout });
    await h.handshake();
    expect(h.frames.find((frame) => frame.type === "subscribe")?.on_timeout).toBe(onTimeout);
    h.send({ type: "event_intercept", id: "i1", event: "tool_call", tool_name: "bash", tool_args: {} });
    const reply = await h.next("event_intercept_response");
    expect(reply).toEqual(onTimeout === "deny" ? { type: "event_intercept_response", id: "i1", block: true, reason: "unit: interceptor failed: guard broke" } : { type: "event_intercept_response", id: "i1" });
    expect(h.logs.some((line) => line.includes("tool_call interceptor failed: guard broke"))).toBe(true);
    h.send({ type: "tool_call", id: "h1", name: "huge", args: {} });
    const result = await h.next("tool_result");
    expect(result.is_error).toBe(true);
    expect(JSON.stringify(result.content)).toContain("result not sent: tool_result frame is");
    expect(JSON.stringify(result.content)).toContain("over the host's 4194304-byte line limit");
    h.end();
    await h.done;
  }
});

test("call_tool: refused without the host capability; from a tool handler it carries parent_id; a reply resolves it; abort cancels", async () => {
  const old = harness(() => {});
  await old.handshake([]);
  await expect(old.ext.callTool("read", {})).rejects.toThrow("does not support call_tool");
  old.end();
  await old.done;

  const h = harness((ext) => ext.tool("outer", "", { type: "object" }, async (_args, ctx) => {
    const inner = await ctx.callTool("read", { path: "x" });
    return `inner said ${JSON.stringify(inner.content)}`;
  }));
  await h.handshake();
  h.send({ type: "tool_call", id: "o1", name: "outer", args: {} });
  const request = await h.next("call_tool");
  expect(request).toMatchObject({ name: "read", args: { path: "x" }, parent_id: "o1" });
  h.send({ type: "tool_result", id: request.id as string, name: "read", content: [{ type: "text", text: "file" }], is_error: false });
  expect((await h.next("tool_result")).content).toEqual([{ type: "text", text: 'inner said [{"type":"text","text":"file"}]' }]);

  const controller = new AbortController();
  const pending = h.ext.callTool("bash", { command: "sleep 9" }, { signal: controller.signal });
  const sent = await h.next("call_tool");
  controller.abort();
  await expect(pending).rejects.toThrow();
  expect(await h.next("call_tool_cancel")).toEqual({ type: "call_tool_cancel", id: sent.id });
  h.end();
  await h.done;
});

test("EOF: run() resolves, in-flight handlers' signals abort, nothing more is read", async () => {
  let reason = "";
  const h = harness((ext) => ext.tool("wait", "", { type: "object" }, (_args, ctx) => new Promise((resolve) => ctx.signal.addEventListener("abort", () => {
    reason = String((ctx.signal.reason as Error).message);
    resolve("x");
  }))));
  await h.handshake();
  h.send({ type: "tool_call", id: "w1", name: "wait", args: {} });
  await sleep(10);
  h.end();
  await h.done;
  expect(reason).toBe("the host closed stdin");
  expect(h.frames.some((frame) => frame.type === "shutdown_ack")).toBe(false);
});

test("values JSON cannot encode: a tool result becomes an error result, a command an error reply, an unawaited render resolves false", async () => {
  const h = harness((ext) => {
    ext.tool("bigint", "", { type: "object" }, () => ({ content: [{ type: "text", text: "x", extra: 1n } as never] }));
    ext.command("cycle", "", () => {
      const panel: Record<string, unknown> = { id: "c", lines: [] };
      panel.self = panel;
      return { action: "open_panel", open_panel: panel as never };
    });
  });
  await h.handshake();
  h.send({ type: "tool_call", id: "b1", name: "bigint", args: {} });
  const result = await h.next("tool_result");
  expect(result.is_error).toBe(true);
  expect(JSON.stringify(result.content)).toContain("not JSON-serialisable");
  h.send({ type: "command_invoked", id: "c1", name: "cycle", args: "" });
  expect(String((await h.next("command_response")).error)).toContain("/cycle: response not sent: command_response frame is not JSON-serialisable");
  // Not awaited, not caught: must not become an unhandled rejection.
  void h.ext.renderPanel("nowhere", { lines: [1n as never] });
  expect(await h.ext.renderPanel("nowhere", { lines: [1n as never] })).toBe(false);
  expect(h.logs.some((line) => line.includes("panel_render not sent"))).toBe(true);
  h.end();
  await h.done;
});
