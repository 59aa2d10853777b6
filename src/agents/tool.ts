/**
 * The built-in `agent` tool: args {description, prompt, agent?, tools?,
 * model?}. Runs `prompt` in a subagent (a swarm child, supervisor.ts) and
 * returns the child's final answer as the result text; the child's usage is
 * the outcome's `usage` (the agent loop adds it to the session's totals).
 * Calls of one model message run concurrently (the tool is concurrency-safe;
 * the supervisor bounds how many children run at once).
 *
 * `agent` names a definition (definitions.ts): its body becomes the child's
 * system prompt, its tools / model apply unless the call gives its own.
 * `tools` must name built-ins the parent may use (read, write, edit, bash);
 * [] means none. Unknown agent or tool names are an error result listing the
 * valid ones. A child that did not complete is an error result with status
 * failed / cancelled / timed_out and its error text. Never throws.
 */
import * as v from "valibot";
import { parseToolArgs } from "../tools/shared.ts";
import { textOutcome, type Tool, type ToolContext, type ToolOutcome, type ToolStatus } from "../tools/types.ts";
import type { AgentDefinition } from "./definitions.ts";
import type { AgentSupervisor } from "./supervisor.ts";

export const AGENT_TOOL_NAME = "agent";
export const MAX_LISTED_DEFINITIONS = 32;

const AgentArgs = v.object({
  description: v.pipe(v.string("expected a string"), v.minLength(1, "must not be empty")),
  prompt: v.pipe(v.string("expected a string"), v.minLength(1, "must not be empty")),
  agent: v.optional(v.string("expected a string")),
  tools: v.optional(v.array(v.string("expected a string"), "expected a list of tool names")),
  model: v.optional(v.string("expected a string")),
});

const SCHEMA: Readonly<Record<string, unknown>> = {
  type: "object",
  properties: {
    description: { type: "string", description: "A few words saying what the subagent does (shown to the user)." },
    prompt: { type: "string", description: "The complete task for the subagent. It sees nothing of this conversation." },
    agent: { type: "string", description: "Name of an agent definition to use (listed in the tool description)." },
    tools: { type: "array", items: { type: "string" }, description: "Built-in tools the subagent may use (subset of read, write, edit, bash)." },
    model: { type: "string", description: "Model for the subagent (default: this conversation's)." },
  },
  required: ["description", "prompt"],
};

export interface AgentToolOptions {
  readonly supervisor: AgentSupervisor;
  readonly definitions: readonly AgentDefinition[];
  /** Built-in tool names the parent may use; a child gets at most these. */
  readonly allowedTools: readonly string[];
}

export function agentToolDescription(definitions: readonly AgentDefinition[], maxConcurrent: number): string {
  const lines = [
    "Run a task in a subagent: a separate zot with a fresh context, the same extensions and guards, and its own tools. " +
      "It returns the subagent's final answer. Give it a complete, self-contained prompt. " +
      `Several agent calls in one message run in parallel (at most ${maxConcurrent} at a time).`,
  ];
  if (definitions.length > 0) {
    lines.push("", "Agent definitions (pass the name as `agent`):");
    for (const definition of definitions.slice(0, MAX_LISTED_DEFINITIONS)) {
      lines.push(`- ${definition.name}: ${(definition.description ?? "(no description)").replace(/\s+/g, " ")}`);
    }
    if (definitions.length > MAX_LISTED_DEFINITIONS) lines.push(`- … and ${definitions.length - MAX_LISTED_DEFINITIONS} more`);
  }
  return lines.join("\n");
}

function statusOf(status: "completed" | "failed" | "cancelled" | "timed_out"): ToolStatus {
  return status;
}

async function runAgent(args: Readonly<Record<string, unknown>>, ctx: ToolContext, options: AgentToolOptions): Promise<ToolOutcome> {
  const parsed = parseToolArgs(AGENT_TOOL_NAME, AgentArgs, args);
  if (!parsed.ok) return parsed.outcome;
  const call = parsed.value;
  let definition: AgentDefinition | undefined;
  if (call.agent !== undefined && call.agent.trim() !== "") {
    definition = options.definitions.find((candidate) => candidate.name === call.agent?.trim());
    if (definition === undefined) {
      const names = options.definitions.map((candidate) => candidate.name);
      return textOutcome(`agent: no agent definition named ${JSON.stringify(call.agent)}; ${names.length === 0 ? "none are defined" : `available: ${names.join(", ")}`}`, true);
    }
  }
  const wanted = call.tools ?? definition?.tools;
  if (wanted !== undefined) {
    const unknown = wanted.filter((name) => !options.allowedTools.includes(name));
    if (unknown.length > 0) {
      return textOutcome(`agent: tools ${unknown.map((name) => JSON.stringify(name)).join(", ")} are not available; allowed: ${options.allowedTools.join(", ") || "none"}`, true);
    }
  }
  if (ctx.signal.aborted) return textOutcome("agent: cancelled", true, { status: "cancelled" });
  const result = await options.supervisor.run({
    toolId: ctx.callId ?? "",
    description: call.description,
    prompt: call.prompt,
    ...(definition !== undefined ? { agent: definition.name, systemPrompt: definition.prompt } : {}),
    ...(wanted !== undefined ? { tools: wanted } : {}),
    ...((call.model ?? definition?.model) !== undefined ? { model: call.model ?? definition?.model } : {}),
    signal: ctx.signal,
  });
  const usage = {
    input_tokens: result.usage.input,
    output_tokens: result.usage.output,
    cache_read_tokens: result.usage.cache_read,
    cache_write_tokens: result.usage.cache_write,
    cost_usd: result.usage.cost_usd,
  };
  const details = { agent_id: result.agentId, agent_run_id: result.agentRunId, status: result.status, ...(result.sessionPath !== undefined ? { session_path: result.sessionPath } : {}) };
  if (result.status === "completed") {
    return textOutcome(result.text === "" ? "(the subagent gave no answer)" : result.text, false, { usage, details });
  }
  const text = `agent ${result.agentId} ${result.status}: ${result.error ?? "no answer"}${result.text !== "" ? `\n\nLast answer:\n${result.text}` : ""}`;
  return textOutcome(text, true, { usage, details, status: statusOf(result.status) });
}

export function createAgentTool(options: AgentToolOptions): Tool {
  return {
    name: AGENT_TOOL_NAME,
    description: agentToolDescription(options.definitions, options.supervisor.maxConcurrent),
    schema: SCHEMA,
    execute: (args, ctx) => runAgent(args, ctx, options),
  };
}
