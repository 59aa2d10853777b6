import { afterEach, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { readSkillHead, HEAD_LIMIT_BYTES } from "../../src/skills/files.ts";
import {
  BUILTIN_SKILL_PATH,
  discoverSkills,
  extensionSkillSources,
  visibleSkills,
  type ExtensionSkillSource,
  type SkillDiscovery,
} from "../../src/skills/index.ts";
import { cleanupTempDirs, makeLayout, writeFile, writeSkill, type Layout } from "./helpers.ts";

afterEach(cleanupTempDirs);

function discover(layout: Layout, withUserSkills: boolean, sources: ExtensionSkillSource[] = []): Promise<SkillDiscovery> {
  return discoverSkills({
    cwd: layout.cwd,
    paths: { home: layout.zotHome },
    withUserSkills,
    extensionSkillSources: sources,
    userHome: layout.userHome,
  });
}

function names(discovery: SkillDiscovery): string[] {
  return discovery.skills.map((skill) => skill.name);
}

describe("user skill directories (--with-skills)", () => {
  test("priority order, first name wins, dedup reported as shadowed", async () => {
    const layout = makeLayout();
    const roots = {
      projectZot: join(layout.cwd, ".zot", "skills"),
      zotHome: join(layout.zotHome, "skills"),
      projectClaude: join(layout.cwd, ".claude", "skills"),
      homeClaude: join(layout.userHome, ".claude", "skills"),
      projectAgents: join(layout.cwd, ".agents", "skills"),
      homeAgents: join(layout.userHome, ".agents", "skills"),
    };
    writeSkill(join(roots.homeAgents, "shared"), { description: "from ~/.agents" });
    writeSkill(join(roots.projectAgents, "shared"), { description: "from ./.agents" });
    writeSkill(join(roots.homeClaude, "shared"), { description: "from ~/.claude" });
    writeSkill(join(roots.projectClaude, "shared"), { description: "from ./.claude" });
    writeSkill(join(roots.zotHome, "shared"), { description: "from $ZOT_HOME" });
    const winner = writeSkill(join(roots.projectZot, "shared"), { description: "from ./.zot" });
    writeSkill(join(roots.homeAgents, "only-home-agents"), { description: "last root" });
    writeSkill(join(roots.homeClaude, "claude-one"), { name: "renamed", description: "named by frontmatter" });

    const found = await discover(layout, true);
    expect(found.warnings).toEqual([]);
    const shared = found.skills.find((skill) => skill.name === "shared");
    expect(shared?.description).toBe("from ./.zot");
    expect(shared?.path).toBe(winner);
    expect(found.shadowed.filter((entry) => entry.name === "shared")).toHaveLength(5);
    expect(found.shadowed.every((entry) => entry.heldBy === winner || entry.name !== "shared")).toBe(true);
    expect(names(found)).toEqual(["shared", "renamed", "only-home-agents", "write-zot-extension"]);
  });

  test("only immediate subdirectories holding SKILL.md count", async () => {
    const layout = makeLayout();
    const root = join(layout.cwd, ".zot", "skills");
    writeSkill(join(root, "good"), { description: "ok" });
    mkdirSync(join(root, "empty-dir"), { recursive: true });
    writeFile(join(root, "loose.md"), "---\nname: loose\n---\n");
    writeSkill(join(root, "nested", "deeper"), { name: "too-deep" });
    const found = await discover(layout, true);
    expect(names(found)).toEqual(["good", "write-zot-extension"]);
  });

  test("user skills shadow built-ins of the same name", async () => {
    const layout = makeLayout();
    const mine = writeSkill(join(layout.zotHome, "skills", "write-zot-extension"), { description: "my own" });
    const found = await discover(layout, true);
    expect(found.skills).toHaveLength(1);
    expect(found.skills[0]?.path).toBe(mine);
    expect(found.shadowed).toEqual([{ name: "write-zot-extension", path: BUILTIN_SKILL_PATH, heldBy: mine }]);
    expect(visibleSkills(found.skills).map((skill) => skill.name)).toEqual(["write-zot-extension"]);
  });

  test("without --with-skills only extension and built-in skills are found", async () => {
    const layout = makeLayout();
    writeSkill(join(layout.cwd, ".zot", "skills", "user-one"), { description: "user" });
    writeSkill(join(layout.userHome, ".claude", "skills", "user-two"), { description: "user" });
    const extDir = join(layout.root, "ext");
    writeSkill(join(extDir, "skills", "ext-one"), { description: "ext" });
    const found = await discover(layout, false, [{ extension: "e", dir: extDir, entries: ["skills"] }]);
    expect(names(found)).toEqual(["ext-one", "write-zot-extension"]);
    expect(visibleSkills(found.skills).map((skill) => skill.name)).toEqual(["ext-one"]);
  });

  test("unreadable directories become warnings, missing ones are silent", async () => {
    if (process.getuid?.() === 0) return; // root reads everything
    const layout = makeLayout();
    const root = join(layout.zotHome, "skills");
    writeSkill(join(root, "hidden"), { description: "x" });
    chmodSync(root, 0o000);
    try {
      const found = await discover(layout, true);
      expect(found.warnings).toHaveLength(1);
      expect(found.warnings[0]).toContain(root);
      expect(names(found)).toEqual(["write-zot-extension"]);
    } finally {
      chmodSync(root, 0o755);
    }
  });
});

describe("read failures", () => {
  test("a SKILL.md that cannot be read (a directory) is a warning, not a skill", async () => {
    const layout = makeLayout();
    const odd = join(layout.cwd, ".agents", "skills", "odd", "SKILL.md");
    mkdirSync(odd, { recursive: true });
    writeSkill(join(layout.cwd, ".agents", "skills", "fine"), { description: "fine" });
    const found = await discover(layout, true);
    expect(names(found)).toEqual(["fine", "write-zot-extension"]);
    expect(found.warnings).toHaveLength(1);
    expect(found.warnings[0]).toStartWith(`cannot read ${odd}: `);
  });
});

describe("extension manifest skills", () => {
  test("directories are scanned recursively and direct SKILL.md paths load", async () => {
    const layout = makeLayout();
    const extDir = join(layout.root, "dev-ext");
    writeSkill(join(extDir, "skills", "commit"), { description: "commit things" });
    writeSkill(join(extDir, "skills", "group", "review"), { description: "deep review" });
    writeSkill(join(extDir, "skills", "group", "deeper", "still"), { name: "deepest" });
    writeSkill(join(extDir, "skills", "node_modules", "pkg"), { name: "from-node-modules" });
    writeSkill(join(extDir, "skills", ".hidden", "secret"), { name: "hidden" });
    const direct = writeSkill(join(extDir, "extra", "solo"), { description: "direct path" });
    writeFile(join(extDir, "notes", "howto.md"), "---\ndescription: named after the file\n---\nbody");

    const found = await discover(layout, false, [
      { extension: "dev", dir: extDir, entries: ["skills", "extra/solo/SKILL.md", "./notes/howto.md"] },
    ]);
    expect(found.warnings).toEqual([]);
    expect(names(found)).toEqual(["commit", "deepest", "review", "solo", "howto", "write-zot-extension"]);
    const solo = found.skills.find((skill) => skill.name === "solo");
    expect(solo?.path).toBe(direct);
    expect(solo?.origin).toEqual({ kind: "extension", extension: "dev" });
  });

  test("extension skills win over user skills; earlier extensions win over later ones", async () => {
    const layout = makeLayout();
    const first = join(layout.root, "first");
    const second = join(layout.root, "second");
    const winner = writeSkill(join(first, "skills", "deploy"), { description: "first" });
    writeSkill(join(second, "skills", "deploy"), { description: "second" });
    writeSkill(join(layout.cwd, ".zot", "skills", "deploy"), { description: "user" });
    const found = await discover(layout, true, [
      { extension: "first", dir: first, entries: ["skills"] },
      { extension: "second", dir: second, entries: ["skills"] },
    ]);
    expect(found.skills.find((skill) => skill.name === "deploy")?.path).toBe(winner);
    expect(found.shadowed.map((entry) => entry.name)).toEqual(["deploy", "deploy"]);
  });

  test("paths escaping the extension dir are refused with a warning", async () => {
    const layout = makeLayout();
    const extDir = join(layout.root, "ext");
    mkdirSync(extDir, { recursive: true });
    const outside = writeSkill(join(layout.root, "outside"), { name: "outside" });
    symlinkSync(join(layout.root, "outside"), join(extDir, "linked-dir"));
    mkdirSync(join(extDir, "inner", "sneaky"), { recursive: true });
    symlinkSync(outside, join(extDir, "inner", "sneaky", "SKILL.md"));

    const found = await discover(layout, false, [
      { extension: "bad", dir: extDir, entries: ["../outside", outside, "linked-dir", "inner", "missing", ""] },
    ]);
    expect(names(found)).toEqual(["write-zot-extension"]);
    expect(found.warnings).toHaveLength(6);
    expect(found.warnings.filter((line) => line.includes("outside the extension directory"))).toHaveLength(4);
    expect(found.warnings.some((line) => line.includes('"missing" does not exist'))).toBe(true);
    expect(found.warnings.every((line) => line.startsWith('extension "bad": '))).toBe(true);
  });

  test("sources are taken from discovery report entries", () => {
    const sources = extensionSkillSources([
      { loaded: { dir: "/a", manifest: { name: "a", skills: ["skills"] } } },
      { loaded: { dir: "/b", manifest: { name: "b" } } },
      { loaded: { dir: "/c", manifest: { name: "c", skills: [] } } },
    ]);
    expect(sources).toEqual([{ extension: "a", dir: "/a", entries: ["skills"] }]);
  });
});

describe("lazy bodies", () => {
  test("discovery reads only the head; the body loads on demand", async () => {
    const layout = makeLayout();
    const big = "x".repeat(2 * 1024 * 1024);
    const path = writeSkill(join(layout.zotHome, "skills", "big"), { description: "large" }, big);
    const found = await discover(layout, true);
    const skill = found.skills.find((candidate) => candidate.name === "big");
    expect(skill?.description).toBe("large");
    writeFile(path, "---\ndescription: large\n---\nchanged body\n");
    expect(await skill?.loadBody()).toEqual({ ok: true, body: "changed body" });
  });

  test("frontmatter that does not close within the head limit counts as none", async () => {
    const layout = makeLayout();
    const path = writeFile(join(layout.root, "SKILL.md"), `---\nname: late\n${"# filler\n".repeat(HEAD_LIMIT_BYTES / 8)}---\nbody`);
    const head = await readSkillHead(path);
    expect(head.kind === "ok" && head.value.name).toBeUndefined();
  });

  test("a body that disappeared is an error value", async () => {
    const layout = makeLayout();
    const path = writeSkill(join(layout.zotHome, "skills", "gone"), { description: "soon gone" });
    const found = await discover(layout, true);
    const { rmSync } = await import("node:fs");
    rmSync(path);
    const body = await found.skills.find((skill) => skill.name === "gone")?.loadBody();
    expect(body?.ok).toBe(false);
  });
});
