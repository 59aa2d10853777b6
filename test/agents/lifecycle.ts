/**
 * The lifecycle-recording extension the subagent tests load (test/fixtures
 * lifecycle.py, every event recorded as a JSON line), a reader for what
 * it recorded, the swarm children of one zot (not another test's), and
 * `childOf`, which picks the model requests of the child given a prompt.
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

/** The text of a request's first user message (a child's prompt). */
export function firstUserText(body: unknown): string {
  const first = (body as { messages?: { role: string; content: unknown }[] } | undefined)?.messages?.[0];
  if (first === undefined || first.role !== "user") return "";
  const content = first.content;
  if (typeof content === "string") return content;
  return Array.isArray(content) ? content.map((block) => (block as { text?: string }).text ?? "").join("") : "";
}

/** Matches the requests of the child whose prompt is `prompt` (its first request has one message). */
export const childOf = (prompt: string) => (body: unknown) => firstUserText(body) === prompt;
