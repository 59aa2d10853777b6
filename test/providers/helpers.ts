/**
 * Test helpers for the providers area: the per-file stand-in model server
 * (`useModelServer`), minimal StreamRequests and an event recorder. No network
 * beyond the in-process stand-in model server.
 */
import { afterAll, beforeAll, beforeEach } from "bun:test";
import { startModelServer, type ModelServer } from "../support/model-server.ts";
import type { Message, ModelInfo, StreamEvent, StreamRequest, ToolSpec } from "../../src/providers/types.ts";

/**
 * Registers this file's stand-in model server: started before the first test,
 * request log cleared before each test, stopped after the last. Returns the
 * running server (throws when called outside the tests' lifetime).
 */
export function useModelServer(): () => ModelServer {
  let server: ModelServer | undefined;
  beforeAll(() => {
    server = startModelServer();
  });
  afterAll(() => server?.stop());
  beforeEach(() => {
    if (server) server.requests.length = 0;
  });
  return () => {
    if (server === undefined) throw new Error("the model server runs only while this file's tests run");
    return server;
  };
}

export function testModel(overrides: Partial<ModelInfo> = {}): ModelInfo {
  return {
    provider: "anthropic",
    id: "claude-sonnet-4-5",
    name: "Claude Sonnet 4.5",
    contextWindow: 200_000,
    maxOutput: 64_000,
    reasoning: true,
    priceInput: 3,
    priceOutput: 15,
    priceCacheRead: 0.3,
    priceCacheWrite: 3.75,
    source: "catalog",
    ...overrides,
  };
}

export function userText(text: string): Message {
  return { role: "user", content: [{ type: "text", text }], time: "2025-01-01T00:00:00.000Z" };
}

export const READ_TOOL: ToolSpec = {
  name: "read",
  description: "Read a file",
  schema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
};
export const BASH_TOOL: ToolSpec = {
  name: "bash",
  description: "Run a command",
  schema: { type: "object", properties: { command: { type: "string" } }, required: ["command"] },
};

export function request(model: ModelInfo, messages: readonly Message[], extra: Partial<StreamRequest> = {}): StreamRequest {
  return {
    model,
    system: "You are a test.",
    messages,
    tools: [READ_TOOL, BASH_TOOL],
    signal: new AbortController().signal,
    ...extra,
  };
}

export function recorder(): { events: StreamEvent[]; onEvent: (event: StreamEvent) => void; text: () => string } {
  const events: StreamEvent[] = [];
  return {
    events,
    onEvent: (event) => void events.push(event),
    text: () => events.map((event) => (event.type === "text_delta" ? event.delta : "")).join(""),
  };
}

/** Awaits a promise expected to reject and returns the rejection. */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error("expected the promise to reject, but it resolved");
}
