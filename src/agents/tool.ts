/**
 * The built-in `agent` tool: args {description, prompt, agent?, tools?,
 * model?, resume?}. Runs `prompt` in a subagent (a swarm child, supervisor.ts) and
 * returns the child's final answer as the result text, followed by a
 * `[agent_id: …]` line; `resume: <agent_id>` continues that agent's session
 * (supervisor.resumable() says why it cannot: an error result); the child's usage is
 * the outcome's `usage` (the agent loop adds it to the session's totals).
 * Calls of one model message run concurrently (the tool is concurrency-safe;
 * the supervisor bounds how many children run at once). Its definition is
 * short (AGENT_TOOL_DESCRIPTION, a few words per argument): it is on by
 * default and sent with every request.
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
import type { RunRecord } from "./runs.ts";
import type { AgentSupervisor } from "./supervisor.ts";

export const AGENT_TOOL_NAME = "agent";
export const MAX_LISTED_DEFINITIONS = 32;

const AgentArgs = v.object({
  description: v.pipe(v.string("expected a string"), v.minLength(1, "must not be empty")),
  prompt: v.pipe(v.string("expected a string"), v.minLength(1, "must not be empty")),
  agent: v.optional(v.string("expected a string")),
  tools: v.optional(v.array(v.string("expected a string"), "expected a list of tool names")),
  model: v.optional(v.string("expected a string")),
  resume: v.optional(v.string("expected a string")),
});

/**
 * Sent with every request (test/modes/tool-descriptions.test.ts bounds it):
 * a few words per argument, the rest is in docs/agents.md. `agent` is in the
 * schema only when there are definitions to name.
 */
export const AGENT_TOOL_DESCRIPTION = "Run a self-contained task in a subagent (fresh context, same tools); returns its final answer.";

function agentToolSchema(withDefinitions: boolean): Readonly<Record<string, unknown>> {
  return {
    type: "object",
    properties: {
      description: { type: "string", description: "3-5 words" },
      prompt: { type: "string" },
      ...(withDefinitions ? { agent: { type: "string", description: "a listed definition" } } : {}),
      tools: { type: "array", items: { type: "string" } },
      model: { type: "string" },
      resume: { type: "string", description: "agent_id to continue" },
    },
    required: ["description", "prompt"],
  };
}

export interface AgentToolOptions {
  readonly supervisor: AgentSupervisor;
  readonly definitions: readonly AgentDefinition[];
  /** Built-in tool names the parent may use; a child gets at most these. */
  readonly allowedTools: readonly string[];
}

/** The tool's description: the short text, then (only when there are any) the definitions the model may name as `agent`. */
export function agentToolDescription(definitions: readonly AgentDefinition[]): string {
  if (definitions.length === 0) return AGENT_TOOL_DESCRIPTION;
  const lines = [AGENT_TOOL_DESCRIPTION, "", "Agent definitions (`agent`):"];
  for (const definition of definitions.slice(0, MAX_LISTED_DEFINITIONS)) {
    lines.push(`- ${definition.name}: ${(definition.description ?? "(no description)").replace(/\s+/g, " ")}`);
  }
  if (definitions.length > MAX_LISTED_DEFINITIONS) lines.push(`- … and ${definitions.length - MAX_LISTED_DEFINITIONS} more`);
  return lines.join("\n");
}

function statusOf(status: "completed" | "failed" | "cancelled" | "timed_out"): ToolStatus {
  return status;
}

async function runAgent(args: Readonly<Record<string, unknown>>, ctx: ToolContext, options: AgentToolOptions): Promise<ToolOutcome> {
  const parsed = parseToolArgs(AGENT_TOOL_NAME, AgentArgs, args);
  if (!parsed.ok) return parsed.outcome;
  const call = parsed.value;
  let resume: RunRecord | undefined;
  if (call.resume !== undefined && call.resume.trim() !== "") {
    // Its last child may still be finishing (it answered; its session file is closed at its exit).
    await options.supervisor.exitedAgent(call.resume.trim());
    const found = options.supervisor.resumable(call.resume.trim());
    if (!found.ok) return textOutcome(`agent: cannot resume: ${found.error}`, true);
    resume = found.record;
  }
  // A resumed agent keeps its definition unless the call names another.
  const agentName = call.agent !== undefined && call.agent.trim() !== "" ? call.agent.trim() : undefined;
  let definition: AgentDefinition | undefined;
  if (agentName === undefined && resume?.agent !== undefined) definition = options.definitions.find((candidate) => candidate.name === resume?.agent);
  if (agentName !== undefined) {
    definition = options.definitions.find((candidate) => candidate.name === agentName);
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
    ...(resume !== undefined ? { resume } : {}),
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
  // The id lets the model continue this subagent later (`resume`).
  const trailer = `\n\n[agent_id: ${result.agentId}]`;
  if (result.status === "completed") {
    return textOutcome(`${result.text === "" ? "(the subagent gave no answer)" : result.text}${trailer}`, false, { usage, details });
  }
  const text = `agent ${result.agentId} ${result.status}: ${result.error ?? "no answer"}${result.text !== "" ? `\n\nLast answer:\n${result.text}` : ""}`;
  return textOutcome(text, true, { usage, details, status: statusOf(result.status) });
}

export function createAgentTool(options: AgentToolOptions): Tool {
  return {
    name: AGENT_TOOL_NAME,
    description: agentToolDescription(options.definitions),
    schema: agentToolSchema(options.definitions.length > 0),
    // Extensions written for the original may have their own `agent` tool: theirs wins.
    yieldsToExtension: true,
    execute: (args, ctx) => runAgent(args, ctx, options),
  };
}
