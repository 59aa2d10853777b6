/**
 * The lifecycle-recording extension the subagent tests load (test/fixtures
 * lifecycle.py, every event recorded as a JSON line), a reader for what
 * it recorded, and the swarm children of one zot (not another test's).
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FIXTURES } from "../support/extensions.ts";
import { commandLine, isAlive } from "../support/processes.ts";

export type Json = Record<string, unknown>;

/** An extension directory under `root` that records every event to `record`. */
export function lifecycleExtension(root: string, record: string): string {
  const dir = join(root, "lifecycle");
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "extension.json"),
    JSON.stringify({ name: "life", exec: join(FIXTURES, "lifecycle.py"), args: ["life", "events=all", `record=${record}`], language: "python" }),
  );
  return dir;
}

export function recorded(path: string): Json[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8").split("\n").filter((line) => line !== "").map((line) => JSON.parse(line) as Json);
}

/** Pids of the live `zot swarm-child` processes whose parent is `pid` (from /proc; empty without it). */
export function swarmChildrenOf(pid: number): number[] {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  const found = new Set<number>();
  for (const task of tasks) {
    let children: string[] = [];
    try {
      children = readFileSync(`/proc/${pid}/task/${task}/children`, "utf8").trim().split(/\s+/).filter(Boolean);
    } catch {
      continue;
    }
    for (const child of children.map(Number)) {
      if (isAlive(child) && (commandLine(child) ?? "").includes("swarm-child")) found.add(child);
    }
  }
  return [...found];
}
