/**
 * The system-prompt addendum that advertises skills: one header line telling
 * the model to call the `skill` tool with a listed name when relevant, then
 * one line per skill, sorted by name:
 *   - <name> [<pointer>]: <description>
 * where the pointer is `builtin` or the SKILL.md path with the user's home
 * directory shown as `~`, and a missing description reads `(no description)`.
 * Descriptions are collapsed to one line. No skills → "".
 */
import { homedir } from "node:os";
import { sep } from "node:path";
import type { Skill } from "./discover.ts";

export const SKILLS_PROMPT_HEADER =
  "Skills are task-specific instruction sets. When the user's request matches one of the skills below, " +
  "call the `skill` tool with its exact name before starting, then follow the instructions it returns:";

/** `path` with a leading home directory replaced by `~`. */
export function tildePath(path: string, home: string): string {
  if (home === "" || home === sep) return path;
  const trimmedHome = home.endsWith(sep) ? home.slice(0, -1) : home;
  if (path === trimmedHome) return "~";
  if (path.startsWith(trimmedHome + sep)) return `~${path.slice(trimmedHome.length)}`;
  return path;
}

export function skillsPromptAddendum(skills: readonly Skill[], home: string = homedir()): string {
  if (skills.length === 0) return "";
  const sorted = [...skills].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const lines = sorted.map((skill) => {
    const pointer = skill.origin.kind === "builtin" ? "builtin" : tildePath(skill.path, home);
    const description = skill.description.replace(/\s+/g, " ").trim() || "(no description)";
    return `- ${skill.name} [${pointer}]: ${description}`;
  });
  return [SKILLS_PROMPT_HEADER, ...lines].join("\n");
}
