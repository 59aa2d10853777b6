import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_IDENTITY, buildSystemPrompt } from "../../src/agent/index.ts";

const DATE = new Date(2025, 2, 7, 15, 30); // local 2025-03-07

let dir: string;
let cwd: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "zot-sysprompt-"));
  cwd = join(dir, "project");
  await mkdir(cwd);
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const footer = (where: string) => `\n\nCurrent date: 2025-03-07\nCurrent working directory: ${where}\n`;

describe("buildSystemPrompt", () => {
  test("default identity plus footer when nothing else is configured", async () => {
    const prompt = await buildSystemPrompt({ cwd, date: DATE, systemFile: join(dir, "missing.md"), contextFiles: true });
    expect(prompt).toBe(DEFAULT_IDENTITY + footer(cwd));
    expect(DEFAULT_IDENTITY).toContain("zero-overhead-tool");
    expect(DEFAULT_IDENTITY).toContain("`edit`");
    expect(DEFAULT_IDENTITY).toContain("`write`");
  });

  test("override wins over SYSTEM.md; SYSTEM.md is trimmed; blank SYSTEM.md falls back", async () => {
    const systemFile = join(dir, "SYSTEM.md");
    await writeFile(systemFile, "\n  Custom identity.  \n\n");
    expect(await buildSystemPrompt({ cwd, date: DATE, systemFile, contextFiles: false })).toBe("Custom identity." + footer(cwd));
    expect(await buildSystemPrompt({ cwd, date: DATE, systemFile, override: "Override!", contextFiles: false })).toBe(
      "Override!" + footer(cwd),
    );
    await writeFile(systemFile, "  \n ");
    expect(await buildSystemPrompt({ cwd, date: DATE, systemFile, contextFiles: false })).toBe(DEFAULT_IDENTITY + footer(cwd));
  });

  test("non-blank appends follow the base, each after a blank line", async () => {
    const prompt = await buildSystemPrompt({
      cwd,
      date: DATE,
      override: "Base.",
      appends: ["First.", "   ", "", "Second."],
      contextFiles: false,
    });
    expect(prompt).toBe("Base.\n\nFirst.\n\nSecond." + footer(cwd));
  });

  test("AGENTS.md is preferred over CLAUDE.md and comes after the appends", async () => {
    await writeFile(join(cwd, "AGENTS.md"), "Use tabs.\n");
    await writeFile(join(cwd, "CLAUDE.md"), "Use spaces.\n");
    const prompt = await buildSystemPrompt({ cwd, date: DATE, override: "Base.", appends: ["Extra."], contextFiles: true });
    expect(prompt).toStartWith("Base.\n\nExtra.\n\n");
    expect(prompt).toContain("AGENTS.md");
    expect(prompt).toContain("Use tabs.");
    expect(prompt).not.toContain("Use spaces.");
    expect(prompt).not.toContain("CLAUDE.md");
    expect(prompt.endsWith("Use tabs." + footer(cwd))).toBe(true);
  });

  test("CLAUDE.md is used when AGENTS.md is absent; contextFiles false skips both", async () => {
    await writeFile(join(cwd, "CLAUDE.md"), "Use spaces.");
    const withContext = await buildSystemPrompt({ cwd, date: DATE, override: "Base.", contextFiles: true });
    expect(withContext).toContain("CLAUDE.md");
    expect(withContext).toContain("Use spaces.");
    const without = await buildSystemPrompt({ cwd, date: DATE, override: "Base.", contextFiles: false });
    expect(without).toBe("Base." + footer(cwd));
  });

  test("an empty cwd renders as '.'", async () => {
    const prompt = await buildSystemPrompt({ cwd: "", date: DATE, override: "B", contextFiles: false });
    expect(prompt).toBe("B" + footer("."));
  });

  test("an unreadable context file is skipped with a warning", async () => {
    await mkdir(join(cwd, "AGENTS.md"));
    await writeFile(join(cwd, "CLAUDE.md"), "Fallback rules.");
    const warnings: string[] = [];
    const prompt = await buildSystemPrompt({ cwd, date: DATE, override: "B", contextFiles: true, onWarning: (w) => warnings.push(w) });
    expect(prompt).toContain("Fallback rules.");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("AGENTS.md");
  });
});
