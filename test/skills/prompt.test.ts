import { describe, expect, test } from "bun:test";
import { builtinSkills, SKILLS_PROMPT_HEADER, skillsPromptAddendum, tildePath, type Skill } from "../../src/skills/index.ts";

function fileSkill(name: string, path: string, description: string): Skill {
  return {
    name,
    description,
    path,
    origin: { kind: "user", root: "/" },
    allowedTools: [],
    permissions: {},
    loadBody: async () => ({ ok: true, body: "" }),
  };
}

describe("skills prompt addendum", () => {
  test("no skills → empty string", () => {
    expect(skillsPromptAddendum([], "/home/me")).toBe("");
  });

  test("header, then one line per skill sorted by name, pointer builtin or ~-path", () => {
    const skills = [
      fileSkill("zeta", "/home/me/.claude/skills/zeta/SKILL.md", "Last one"),
      ...builtinSkills(),
      fileSkill("alpha", "/srv/project/.zot/skills/alpha/SKILL.md", ""),
      fileSkill("Beta", "/home/me2/skills/Beta/SKILL.md", "multi\n  line\tdescription"),
    ];
    const lines = skillsPromptAddendum(skills, "/home/me").split("\n");
    expect(lines[0]).toBe(SKILLS_PROMPT_HEADER);
    expect(SKILLS_PROMPT_HEADER).toContain("`skill` tool");
    expect(lines.slice(1)).toEqual([
      "- Beta [/home/me2/skills/Beta/SKILL.md]: multi line description",
      "- alpha [/srv/project/.zot/skills/alpha/SKILL.md]: (no description)",
      `- write-zot-extension [builtin]: ${builtinSkills()[0]?.description}`,
      "- zeta [~/.claude/skills/zeta/SKILL.md]: Last one",
    ]);
  });

  test("tildePath only replaces a whole leading home component", () => {
    expect(tildePath("/home/me/x/SKILL.md", "/home/me")).toBe("~/x/SKILL.md");
    expect(tildePath("/home/me/x/SKILL.md", "/home/me/")).toBe("~/x/SKILL.md");
    expect(tildePath("/home/meow/x", "/home/me")).toBe("/home/meow/x");
    expect(tildePath("/home/me", "/home/me")).toBe("~");
    expect(tildePath("/x", "/")).toBe("/x");
  });
});
