/**
 * The `skill` tool: args `{name: string}` (required). A known name returns
 *   "# Skill: <name>\n\n<description>\n\n---\n\n<body>"
 * with details {skill, path}; the body is read only now. An unknown name is
 * an error outcome `skill: no skill named "x"` followed by up to
 * MAX_LISTED_NAMES available names. An unreadable body is an error outcome
 * too. The skill set is fixed at creation, or read through a getter on every
 * call when the caller re-discovers skills. Never throws.
 */
import * as v from "valibot";
import { errorMessage } from "../common/errors.ts";
import { parseToolArgs } from "../tools/shared.ts";
import { textOutcome, type Tool, type ToolContext, type ToolOutcome } from "../tools/types.ts";
import type { Skill } from "./discover.ts";

export const SKILL_TOOL_NAME = "skill";
export const MAX_LISTED_NAMES = 20;
const NO_DESCRIPTION = "(no description)";

const SkillArgs = v.object({
  name: v.pipe(v.string("expected a string"), v.minLength(1, "must not be empty")),
});

const SKILL_TOOL_DESCRIPTION = "Load a skill listed in the system prompt, by name.";

const SKILL_TOOL_SCHEMA: Readonly<Record<string, unknown>> = {
  type: "object",
  properties: { name: { type: "string" } },
  required: ["name"],
};

export type SkillSetSource = readonly Skill[] | (() => readonly Skill[]);

/** The error text for a name no skill has. */
export function unknownSkillMessage(name: string, skills: readonly Skill[]): string {
  const head = `skill: no skill named ${JSON.stringify(name)}`;
  if (skills.length === 0) return `${head}; no skills are available`;
  const names = skills.map((skill) => skill.name).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const listed = names.slice(0, MAX_LISTED_NAMES).join(", ");
  const more = names.length > MAX_LISTED_NAMES ? ` (and ${names.length - MAX_LISTED_NAMES} more)` : "";
  return `${head}; available: ${listed}${more}`;
}

/** The success text for one skill and its loaded body. */
export function formatSkillText(skill: Skill, body: string): string {
  return `# Skill: ${skill.name}\n\n${skill.description || NO_DESCRIPTION}\n\n---\n\n${body}`;
}

async function runSkill(args: Readonly<Record<string, unknown>>, ctx: ToolContext, source: SkillSetSource): Promise<ToolOutcome> {
  const parsed = parseToolArgs(SKILL_TOOL_NAME, SkillArgs, args);
  if (!parsed.ok) return parsed.outcome;
  const skills = typeof source === "function" ? source() : source;
  const wanted = parsed.value.name.trim();
  const skill = skills.find((candidate) => candidate.name === wanted);
  if (skill === undefined) return textOutcome(unknownSkillMessage(wanted, skills), true);
  if (ctx.signal.aborted) return textOutcome("skill: cancelled", true, { status: "cancelled" });
  const loaded = await skill.loadBody();
  if (!loaded.ok) return textOutcome(`skill: ${skill.name}: ${loaded.error}`, true, { details: { skill: skill.name, path: skill.path } });
  return textOutcome(formatSkillText(skill, loaded.body), false, { details: { skill: skill.name, path: skill.path } });
}

/** A fresh `skill` tool over the given skills (or a getter of the current ones). */
export function createSkillTool(source: SkillSetSource): Tool {
  return {
    name: SKILL_TOOL_NAME,
    description: SKILL_TOOL_DESCRIPTION,
    schema: SKILL_TOOL_SCHEMA,
    execute: async (args, ctx) => {
      try {
        return await runSkill(args, ctx, source);
      } catch (err) {
        return textOutcome(`skill: ${errorMessage(err)}`, true);
      }
    },
  };
}
