/**
 * `/skills`: a picker (ListDialog, filter by typing) of the skills this run
 * loaded for the skill tool, built-ins left out as in the original (name,
 * description, where it comes from); Enter opens the skill's SKILL.md body
 * in a viewer on top (Esc goes back to the list). No skills: one line
 * saying how to get some.
 */
import { homedir } from "node:os";
import { tildePath, visibleSkills, type Skill } from "../../../skills/index.ts";
import { ListDialog } from "../../../tui/index.ts";
import type { BuiltinCommand, CommandHost } from "../command-types.ts";
import { ReadingView } from "../reading-view.ts";

function origin(skill: Skill): string {
  if (skill.origin.kind === "extension") return `[${skill.origin.extension}]`;
  return tildePath(skill.path, homedir());
}

async function showSkill(host: CommandHost, skill: Skill): Promise<void> {
  const view = new ReadingView({ theme: host.theme, title: `skill ${skill.name} · ${origin(skill)}`, text: "loading…" });
  host.openOverlay(view);
  const body = await skill.loadBody();
  view.setText(body.ok ? `${skill.description || "(no description)"}\n\n${body.body}` : `cannot read ${skill.path}: ${body.error}`);
  host.frame();
}

function skillsCommand(host: CommandHost): void {
  const skills = visibleSkills(host.runtime.skills);
  if (skills.length === 0) {
    host.chat.info("no skills loaded (zot --with-skills reads ./.zot/skills, $ZOT_HOME/skills, .claude/skills, .agents/skills; extensions can ship them)");
    return;
  }
  const byName = new Map(skills.map((skill) => [skill.name, skill]));
  host.openOverlay(
    new ListDialog({
      theme: host.theme,
      title: "skills",
      items: skills.map((skill) => ({ value: skill.name, label: skill.name, description: `${skill.description || "(no description)"} · ${origin(skill)}` })),
      hint: "Enter show · Esc close",
      onChoose: (item) => {
        const skill = item === undefined ? undefined : byName.get(item.value);
        if (skill !== undefined) void showSkill(host, skill);
        return "handled";
      },
    }),
  );
}

export const SKILLS_COMMAND: BuiltinCommand = {
  name: "skills",
  usage: "/skills",
  description: "list the loaded skills; Enter shows one",
  immediate: true,
  run: (host) => skillsCommand(host),
};
