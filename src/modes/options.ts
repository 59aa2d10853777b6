/**
 * Validation of the flag values the headless modes interpret themselves:
 * --reasoning (low|medium|high, case-insensitive, "" = unset), --max-steps
 * (positive integer, default 50; 0 = no limit, as in the original zot),
 * --auto-compact (a share of the context
 * window in [0.05, 1], or off), --tools / --no-tools (every --tools name
 * must be a selectable built-in: read, write, edit, bash, or agent — the
 * subagent tool, which --no-tools and a --tools list without it leave out;
 * `skill` is accepted and ignored, as the original's --tools left the skill tool alone),
 * and the session
 * flags (which one applies; --no-session with another session flag is a
 * contradiction). Pure: every problem is a UsageError (exit 2), nothing is
 * read from disk.
 */
import { DEFAULT_MAX_STEPS } from "../agent/session.ts";
import { UsageError } from "../common/errors.ts";
import type { MainFlags } from "../cli/flags.ts";
import type { ReasoningLevel } from "../providers/types.ts";
import { FILE_AND_SHELL_TOOL_NAMES } from "../tools/index.ts";

const REASONING_LEVELS: readonly ReasoningLevel[] = ["low", "medium", "high"];

export type SessionChoice =
  | { readonly kind: "none" }
  | { readonly kind: "new" }
  | { readonly kind: "path"; readonly path: string }
  | { readonly kind: "fork"; readonly path: string }
  | { readonly kind: "continue" }
  | { readonly kind: "resume" };

export interface ToolSelection {
  /** `--tools a,b`: keep only these built-ins. */
  readonly only?: readonly string[];
  /** `--no-tools`. */
  readonly none: boolean;
}

export interface HeadlessOptions {
  readonly reasoning: ReasoningLevel | undefined;
  readonly maxSteps: number;
  /** undefined: not given on the command line (config.json or the default decides). */
  readonly autoCompact: number | false | undefined;
  readonly tools: ToolSelection;
  readonly session: SessionChoice;
}

export function parseReasoning(value: string | undefined): ReasoningLevel | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const lower = value.trim().toLowerCase();
  const level = REASONING_LEVELS.find((candidate) => candidate === lower);
  if (level === undefined) throw new UsageError(`--reasoning must be low|medium|high, got "${value}"`, { flag: "--reasoning" });
  return level;
}

/** `--max-steps 0`: no limit (the original zot's meaning of 0); the loop's bound is then never reached. */
export const UNLIMITED_MAX_STEPS = Number.MAX_SAFE_INTEGER;

export function parseMaxSteps(value: string | undefined): number {
  if (value === undefined) return DEFAULT_MAX_STEPS;
  const trimmed = value.trim();
  const steps = /^\d+$/.test(trimmed) ? Number(trimmed) : Number.NaN;
  if (steps === 0) return UNLIMITED_MAX_STEPS;
  if (!Number.isSafeInteger(steps) || steps < 1) {
    throw new UsageError(`--max-steps must be a positive integer, got "${value}"`, { flag: "--max-steps" });
  }
  return steps;
}

export function parseAutoCompact(value: string | undefined): number | false | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim().toLowerCase();
  if (trimmed === "off" || trimmed === "false") return false;
  const share = /^\d*\.?\d+$/.test(trimmed) ? Number(trimmed) : Number.NaN;
  if (!(share >= 0.05 && share <= 1)) {
    throw new UsageError(`--auto-compact must be a share of the context window between 0.05 and 1, or off; got "${value}"`, { flag: "--auto-compact" });
  }
  return share;
}

export function parseToolSelection(flags: Pick<MainFlags, "tools" | "noTools">): ToolSelection {
  if (flags.noTools) return { none: true };
  if (flags.tools === undefined) return { none: false };
  // "skill" (a tool name of the original zot, whose --tools never filtered it) is accepted and changes nothing:
  // the skill tool is there whenever skills are (--no-skill turns it off).
  const only = flags.tools
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "" && name !== "skill");
  // "agent": the subagent tool (src/agents), on by default, kept by a --tools list only when named.
  const valid: readonly string[] = [...FILE_AND_SHELL_TOOL_NAMES, "agent"];
  const unknown = only.filter((name) => !valid.includes(name));
  if (unknown.length > 0) {
    const names = unknown.map((name) => `"${name}"`).join(", ");
    throw new UsageError(
      `--tools: unknown tool${unknown.length > 1 ? "s" : ""} ${names}; the built-in tools are ${valid.join(", ")}`,
      { flag: "--tools" },
    );
  }
  return { only, none: false };
}

export function parseSessionChoice(flags: Pick<MainFlags, "noSession" | "session" | "fork" | "continue" | "resume">): SessionChoice {
  const chosen = [
    flags.session !== undefined ? "--session" : undefined,
    flags.fork !== undefined ? "--fork" : undefined,
    flags.continue ? "--continue" : undefined,
    flags.resume ? "--resume" : undefined,
  ].filter((name): name is string => name !== undefined);
  if (flags.noSession && chosen.length > 0) {
    throw new UsageError(`--no-session cannot be combined with ${chosen[0]}`, { flag: "--no-session" });
  }
  if (chosen.length > 1) throw new UsageError(`${chosen[0]} cannot be combined with ${chosen[1]}`, { flag: chosen[1] });
  if (flags.noSession) return { kind: "none" };
  if (flags.session !== undefined) {
    if (flags.session.trim() === "") throw new UsageError("--session needs a file path", { flag: "--session" });
    return { kind: "path", path: flags.session };
  }
  if (flags.fork !== undefined) {
    if (flags.fork.trim() === "") throw new UsageError("--fork needs a session file path", { flag: "--fork" });
    return { kind: "fork", path: flags.fork };
  }
  if (flags.continue) return { kind: "continue" };
  if (flags.resume) return { kind: "resume" };
  return { kind: "new" };
}

export function parseHeadlessOptions(flags: MainFlags): HeadlessOptions {
  return {
    reasoning: parseReasoning(flags.reasoning),
    maxSteps: parseMaxSteps(flags.maxSteps),
    autoCompact: parseAutoCompact(flags.autoCompact),
    tools: parseToolSelection(flags),
    session: parseSessionChoice(flags),
  };
}
