/**
 * Test helpers for skills: throwaway directories, SKILL.md writers and a
 * layout (project cwd, $ZOT_HOME, user home) that never touches the real ~.
 */
import { tempDir as sharedTempDir } from "../support/temp.ts";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { ToolContext, ToolOutcome } from "../../src/tools/types.ts";

/** A fresh directory (canonical path) removed by cleanupTempDirs(). */
export function tempDir(prefix = "zot-skills-"): string {
  return sharedTempDir(prefix);
}

export { removeTempDirs as cleanupTempDirs } from "../support/temp.ts";

export function writeFile(path: string, text: string): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return path;
}

/** Writes <dir>/SKILL.md with optional frontmatter fields and a body. */
export function writeSkill(dir: string, fields: { name?: string; description?: string }, body = "Body text."): string {
  const lines = ["---"];
  if (fields.name !== undefined) lines.push(`name: ${fields.name}`);
  if (fields.description !== undefined) lines.push(`description: ${fields.description}`);
  lines.push("---", "", body, "");
  return writeFile(join(dir, "SKILL.md"), lines.join("\n"));
}

export interface Layout {
  readonly root: string;
  readonly cwd: string;
  readonly zotHome: string;
  readonly userHome: string;
}

export function makeLayout(): Layout {
  const root = tempDir();
  const layout = { root, cwd: join(root, "project"), zotHome: join(root, "zot-home"), userHome: join(root, "home") };
  for (const dir of [layout.cwd, layout.zotHome, layout.userHome]) mkdirSync(dir, { recursive: true });
  return layout;
}

export function makeContext(cwd: string, signal: AbortSignal = new AbortController().signal): ToolContext {
  return { cwd, signal, onProgress: () => {} };
}

export function textOf(outcome: ToolOutcome): string {
  return outcome.content.map((block) => (block.type === "text" ? block.text : "")).join("");
}
