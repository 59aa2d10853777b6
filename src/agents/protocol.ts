/**
 * The swarm-child wire protocol: NDJSON over the child's stdin / stdout
 * (`zot swarm-child`, hidden). One JSON object per line, `type` first.
 *
 * Parent → child (stdin):
 *   {"type":"prepare","provider"?,"base_url"?,"extensions"?}   optional, first line of a warm
 *                                   child (spawned before its task is known):
 *                                   it warms up and waits for the task
 *   {"type":"task", ...SwarmTask}   exactly once, first line (after a prepare)
 *   {"type":"cancel"}               stop the run (the child still answers with a result)
 *   EOF on stdin                    the parent is gone: same as cancel; a warm
 *                                   child without a task exits 0, saying nothing
 * Child → parent (stdout):
 *   {"type":"started","session_id","session_path"?}   setup finished
 *   {"type":"event","event":{...}}                     one agent event, its --json form
 *   {"type":"result","status","text","error"?,"usage"} the run's end; the last line
 *
 * Lines are at most MAX_SWARM_LINE_BYTES; documents nest at most
 * MAX_JSON_DEPTH (parseJson). Anything else from the child is a protocol
 * failure (the run becomes `failed`).
 */
import { MAX_JSON_DEPTH, parseJson } from "../common/json.ts";
import { goJsonStringify, type UsageFields } from "../agent/events.ts";

export const MAX_SWARM_LINE_BYTES = 8 * 1024 * 1024;

export type SubagentStatus = "completed" | "failed" | "cancelled" | "timed_out";

/** A run's usage on the wire: the JSON events' usage fields. */
export type SwarmUsage = UsageFields;

/** Everything the child needs to run one task (never on argv: it may hold a key). */
export interface SwarmTask {
  readonly agent_id: string;
  readonly agent_run_id: string;
  readonly parent_session_id: string;
  readonly prompt: string;
  readonly cwd: string;
  readonly provider?: string;
  readonly model?: string;
  readonly base_url?: string;
  readonly api_key?: string;
  readonly reasoning?: string;
  readonly max_steps?: string;
  /** `--tools` for the child: undefined = the default built-ins, [] = none. */
  readonly tools?: readonly string[];
  /** Replaces the default system prompt (an agent definition's body). */
  readonly system_prompt?: string;
  readonly append_system_prompt: readonly string[];
  readonly ext: readonly string[];
  readonly no_ext: boolean;
  readonly no_skill: boolean;
  readonly with_skills: boolean;
  readonly jail: boolean;
  /** The parent's project-trust decision (undefined: the child decides, headless). */
  readonly trust_project?: boolean;
  /** The parent's --mcp files, absolute (docs/mcp.md); absent = none. */
  readonly mcp?: readonly string[];
  /** Resume: continue this session file (an earlier run's of the same agent_id) instead of a new one. */
  readonly resume_session?: string;
  /** Where the child's session file goes (a sessions root); undefined = no session file. */
  readonly sessions_root?: string;
}

/** What a warm child may prepare before its task: the connection and the provider's client. */
export interface SwarmPrepare {
  readonly provider?: string;
  readonly base_url?: string;
  /** The parent runs an extension host: the child will too (load its modules). */
  readonly extensions?: boolean;
}

export type ParentMessage = ({ readonly type: "task" } & SwarmTask) | ({ readonly type: "prepare" } & SwarmPrepare) | { readonly type: "cancel" };

export type ChildMessage =
  | { readonly type: "started"; readonly session_id: string; readonly session_path?: string }
  | { readonly type: "event"; readonly event: Readonly<Record<string, unknown>> }
  | {
      readonly type: "result";
      readonly status: SubagentStatus;
      readonly text: string;
      readonly error?: string;
      readonly usage: SwarmUsage;
    };

export function encodeLine(message: ParentMessage | ChildMessage): string {
  return `${goJsonStringify(message)}\n`;
}

type Parsed<T> = { readonly ok: true; readonly message: T } | { readonly ok: false; readonly error: string };

function record(line: string): Parsed<Record<string, unknown>> {
  const parsed = parseJson(line, MAX_JSON_DEPTH);
  if (!parsed.ok) return { ok: false, error: `not JSON (${parsed.problem.kind})` };
  const value = parsed.value;
  if (typeof value !== "object" || value === null || Array.isArray(value)) return { ok: false, error: "not a JSON object" };
  return { ok: true, message: value as Record<string, unknown> };
}

const STATUSES: ReadonlySet<string> = new Set(["completed", "failed", "cancelled", "timed_out"]);

function num(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

export function usageOf(value: unknown): SwarmUsage {
  const usage = typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
  return { input: num(usage.input), output: num(usage.output), cache_read: num(usage.cache_read), cache_write: num(usage.cache_write), cost_usd: num(usage.cost_usd) };
}

export function parseChildLine(line: string): Parsed<ChildMessage> {
  const parsed = record(line);
  if (!parsed.ok) return parsed;
  const m = parsed.message;
  switch (m.type) {
    case "started":
      if (typeof m.session_id !== "string") return { ok: false, error: "started: session_id must be a string" };
      return { ok: true, message: { type: "started", session_id: m.session_id, ...(typeof m.session_path === "string" ? { session_path: m.session_path } : {}) } };
    case "event":
      if (typeof m.event !== "object" || m.event === null || Array.isArray(m.event)) return { ok: false, error: "event: event must be an object" };
      return { ok: true, message: { type: "event", event: m.event as Record<string, unknown> } };
    case "result":
      if (typeof m.status !== "string" || !STATUSES.has(m.status)) return { ok: false, error: "result: unknown status" };
      return {
        ok: true,
        message: {
          type: "result",
          status: m.status as SubagentStatus,
          text: typeof m.text === "string" ? m.text : "",
          ...(typeof m.error === "string" ? { error: m.error } : {}),
          usage: usageOf(m.usage),
        },
      };
    default:
      return { ok: false, error: `unknown message type ${JSON.stringify(m.type)}` };
  }
}

function strings(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.every((item) => typeof item === "string") ? value : undefined;
}

function optionalString(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** Validates a line from the parent; errors name the field at fault. */
export function parseParentLine(line: string): Parsed<ParentMessage> {
  const parsed = record(line);
  if (!parsed.ok) return parsed;
  const m = parsed.message;
  if (m.type === "cancel") return { ok: true, message: { type: "cancel" } };
  if (m.type === "prepare") return { ok: true, message: { type: "prepare", provider: optionalString(m.provider), base_url: optionalString(m.base_url), extensions: m.extensions === true } };
  if (m.type !== "task") return { ok: false, error: `unknown message type ${JSON.stringify(m.type)}` };
  for (const field of ["agent_id", "agent_run_id", "parent_session_id", "prompt", "cwd"] as const) {
    if (typeof m[field] !== "string") return { ok: false, error: `task: ${field} must be a string` };
  }
  const tools = m.tools === undefined ? undefined : strings(m.tools);
  if (m.tools !== undefined && tools === undefined) return { ok: false, error: "task: tools must be a list of names" };
  const task: SwarmTask = {
    agent_id: m.agent_id as string,
    agent_run_id: m.agent_run_id as string,
    parent_session_id: m.parent_session_id as string,
    prompt: m.prompt as string,
    cwd: m.cwd as string,
    provider: optionalString(m.provider),
    model: optionalString(m.model),
    base_url: optionalString(m.base_url),
    api_key: optionalString(m.api_key),
    reasoning: optionalString(m.reasoning),
    max_steps: optionalString(m.max_steps),
    tools,
    system_prompt: optionalString(m.system_prompt),
    append_system_prompt: strings(m.append_system_prompt) ?? [],
    ext: strings(m.ext) ?? [],
    no_ext: m.no_ext === true,
    no_skill: m.no_skill === true,
    with_skills: m.with_skills === true,
    jail: m.jail === true,
    ...(typeof m.trust_project === "boolean" ? { trust_project: m.trust_project } : {}),
    ...(strings(m.mcp) !== undefined ? { mcp: strings(m.mcp) } : {}),
    sessions_root: optionalString(m.sessions_root),
    resume_session: optionalString(m.resume_session),
  };
  return { ok: true, message: { type: "task", ...task } };
}
