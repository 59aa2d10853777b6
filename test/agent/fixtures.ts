/**
 * Small real tools and a minimal AgentTools for the agent tests, plus a
 * session factory that records every event and persistence callback.
 */
import { expect } from "bun:test";
import { AgentSession, type AgentEvent, type AgentSessionOptions, type AgentTools } from "../../src/agent/index.ts";
import type { Message, ModelInfo, ToolSpec, Usage } from "../../src/providers/types.ts";
import { textOutcome, type Tool, type ToolContext, type ToolOutcome } from "../../src/tools/types.ts";
import { ScriptedClient, type ScriptStep } from "./scripted-client.ts";

export const TEST_MODEL: ModelInfo = {
  provider: "anthropic",
  id: "test-model",
  name: "Test Model",
  contextWindow: 100_000,
  maxOutput: 4096,
  reasoning: false,
  priceInput: 1,
  priceOutput: 2,
  priceCacheRead: 0.1,
  priceCacheWrite: 1.25,
  source: "catalog",
};

export interface ToolCallLog {
  readonly name: string;
  readonly args: Readonly<Record<string, unknown>>;
  readonly ctx: ToolContext;
}

export function defineTool(
  name: string,
  run: (args: Readonly<Record<string, unknown>>, ctx: ToolContext) => Promise<ToolOutcome> | ToolOutcome,
  extra: Partial<Pick<Tool, "deferred" | "interactive" | "extension">> = {},
): Tool {
  return {
    name,
    description: `test tool ${name}`,
    schema: { type: "object" },
    ...extra,
    async execute(args, ctx) {
      return run(args, ctx);
    },
  };
}

/** Echoes args.text back. */
export function echoTool(log?: ToolCallLog[]): Tool {
  return defineTool("echo", (args, ctx) => {
    log?.push({ name: "echo", args, ctx });
    return textOutcome(`echo: ${String(args.text)}`);
  });
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export class TestTools implements AgentTools {
  readonly #tools = new Map<string, Tool>();
  readonly activated: string[] = [];

  constructor(tools: readonly Tool[]) {
    for (const tool of tools) this.#tools.set(tool.name, tool);
  }

  specs(): readonly ToolSpec[] {
    return [...this.#tools.values()]
      .filter((tool) => tool.deferred !== true || this.activated.includes(tool.name))
      .map((tool) => ({ name: tool.name, description: tool.description, schema: tool.schema }))
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  get(name: string): Tool | undefined {
    return this.#tools.get(name);
  }

  activate(names: readonly string[]): void {
    this.activated.push(...names);
  }
}

export interface Harness {
  readonly session: AgentSession;
  readonly client: ScriptedClient;
  readonly events: AgentEvent[];
  /** Persistence callbacks in call order. */
  readonly persisted: ({ kind: "message"; message: Message } | { kind: "usage"; turn: Usage; cumulative: Usage })[];
}

export function harness(
  steps: readonly ScriptStep[],
  tools: readonly Tool[] = [],
  options: Partial<AgentSessionOptions> = {},
): Harness {
  const client = new ScriptedClient(steps);
  const events: AgentEvent[] = [];
  const persisted: Harness["persisted"] = [];
  const session = new AgentSession({
    client,
    model: TEST_MODEL,
    system: "base prompt",
    tools: new TestTools(tools),
    cwd: "/project",
    onEvent: (event) => events.push(event),
    persistence: {
      onMessage: (message) => persisted.push({ kind: "message", message }),
      onUsage: (turn, cumulative) => persisted.push({ kind: "usage", turn: { ...turn }, cumulative: { ...cumulative } }),
    },
    ...options,
  });
  return { session, client, events, persisted };
}

export function eventTypes(events: readonly AgentEvent[]): string[] {
  return events.map((event) => event.type);
}

/** Exactly one terminal event (done or error), and it is the last. */
export function expectSingleTerminal(events: readonly AgentEvent[], expected: "done" | "error"): void {
  const terminals = events.filter((event) => event.type === "done" || event.type === "error");
  expect(terminals.length).toBe(1);
  expect(events.at(-1)?.type).toBe(expected);
}

export function toolResultsOf(message: Message | undefined): { call_id: string; is_error: boolean; text: string }[] {
  if (message === undefined) return [];
  const out: { call_id: string; is_error: boolean; text: string }[] = [];
  for (const block of message.content) {
    if (block.type !== "tool_result") continue;
    const text = block.content.map((inner) => (inner.type === "text" ? inner.text : `[image ${inner.mime_type}]`)).join("");
    out.push({ call_id: block.call_id, is_error: block.is_error, text });
  }
  return out;
}
