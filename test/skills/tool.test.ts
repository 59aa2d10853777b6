import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import {
  BUILTIN_SKILLS,
  builtinSkills,
  createSkillTool,
  discoverSkills,
  MAX_LISTED_NAMES,
  type Skill,
} from "../../src/skills/index.ts";
import { cleanupTempDirs, makeContext, makeLayout, textOf, writeFile, writeSkill } from "./helpers.ts";

afterEach(cleanupTempDirs);

function fakeSkill(name: string, description = ""): Skill {
  return {
    name,
    description,
    path: `/skills/${name}/SKILL.md`,
    origin: { kind: "user", root: "/skills" },
    allowedTools: [],
    permissions: {},
    loadBody: async () => ({ ok: true, body: `body of ${name}` }),
  };
}

describe("skill tool", () => {
  test("spec: name skill, {name} required", () => {
    const tool = createSkillTool([]);
    expect(tool.name).toBe("skill");
    expect(tool.schema).toMatchObject({ type: "object", required: ["name"], properties: { name: { type: "string" } } });
    expect(tool.extension).toBeUndefined();
  });

  test("success returns header, description, rule and the lazily read body", async () => {
    const layout = makeLayout();
    const path = writeSkill(join(layout.cwd, ".zot", "skills", "commit"), { description: "Write commit messages" }, "Use the imperative mood.");
    const { skills } = await discoverSkills({ cwd: layout.cwd, paths: { home: layout.zotHome }, withUserSkills: true, extensionSkillSources: [], userHome: layout.userHome });
    const outcome = await createSkillTool(skills).execute({ name: "commit" }, makeContext(layout.cwd));
    expect(outcome.isError).toBe(false);
    expect(textOf(outcome)).toBe("# Skill: commit\n\nWrite commit messages\n\n---\n\nUse the imperative mood.");
    expect(outcome.details).toEqual({ skill: "commit", path });
  });

  test("built-in skill loads from the binary", async () => {
    const outcome = await createSkillTool(builtinSkills()).execute({ name: "write-zot-extension" }, makeContext("/"));
    expect(outcome.isError).toBe(false);
    expect(textOf(outcome)).toStartWith("# Skill: write-zot-extension\n\n");
    expect(textOf(outcome)).toContain("hello_ack");
    expect(outcome.details).toEqual({ skill: "write-zot-extension", path: "builtin" });
  });

  test("unknown name is an error listing available names", async () => {
    const outcome = await createSkillTool([fakeSkill("beta"), fakeSkill("alpha")]).execute({ name: "gamma" }, makeContext("/"));
    expect(outcome.isError).toBe(true);
    expect(textOf(outcome)).toBe('skill: no skill named "gamma"; available: alpha, beta');
  });

  test("the list of available names stops at 20", async () => {
    const skills = Array.from({ length: 25 }, (_, index) => fakeSkill(`s${String(index).padStart(2, "0")}`));
    const text = textOf(await createSkillTool(skills).execute({ name: "nope" }, makeContext("/")));
    const listed = text.split("available: ")[1]?.replace(/ \(and \d+ more\)$/, "").split(", ");
    expect(listed).toHaveLength(MAX_LISTED_NAMES);
    expect(text).toEndWith("s19 (and 5 more)");
  });

  test("no skills at all", async () => {
    const text = textOf(await createSkillTool([]).execute({ name: "x" }, makeContext("/")));
    expect(text).toBe('skill: no skill named "x"; no skills are available');
  });

  test("invalid args are error outcomes", async () => {
    const tool = createSkillTool([fakeSkill("a")]);
    for (const args of [{}, { name: 3 }, { name: "" }]) {
      const outcome = await tool.execute(args, makeContext("/"));
      expect(outcome.isError).toBe(true);
      expect(textOf(outcome)).toStartWith("skill: ");
    }
  });

  test("a body that cannot be read is an error outcome", async () => {
    const layout = makeLayout();
    const path = writeFile(join(layout.root, "ext", "SKILL.md"), "---\nname: vanishing\n---\nbody");
    const { skills } = await discoverSkills({
      cwd: layout.cwd,
      paths: { home: layout.zotHome },
      withUserSkills: false,
      extensionSkillSources: [{ extension: "e", dir: join(layout.root, "ext"), entries: ["SKILL.md"] }],
      userHome: layout.userHome,
    });
    (await import("node:fs")).rmSync(path);
    const outcome = await createSkillTool(skills).execute({ name: "vanishing" }, makeContext(layout.cwd));
    expect(outcome.isError).toBe(true);
    expect(textOf(outcome)).toContain("vanishing");
  });

  test("a getter sees the current skill set", async () => {
    let current: Skill[] = [];
    const tool = createSkillTool(() => current);
    expect((await tool.execute({ name: "late" }, makeContext("/"))).isError).toBe(true);
    current = [fakeSkill("late", "arrived")];
    expect(textOf(await tool.execute({ name: "late" }, makeContext("/")))).toBe("# Skill: late\n\narrived\n\n---\n\nbody of late");
  });
});

describe("built-in skill text", () => {
  test("write-zot-extension is compact and covers the protocol", () => {
    const skill = BUILTIN_SKILLS.find((definition) => definition.name === "write-zot-extension");
    expect(skill).toBeDefined();
    const body = skill?.body ?? "";
    expect(new TextEncoder().encode(body).length).toBeLessThan(8 * 1024);
    for (const term of ["extension.json", "hello_ack", "register_command", "register_tool", "ready", "subscribe", "event_intercept_response", "notify", "shutdown_ack", "zot ext install", "--ext", "zot ext doctor", "zot ext logs", "```python", "```ts"]) {
      expect(body).toContain(term);
    }
  });
});
