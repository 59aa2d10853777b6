/**
 * A subagent (`zot swarm-child`) inherits its parent's project-trust
 * decision, through dist/zot: with the parent trusting the project for the
 * run (--trust), the child starts the project's extension too (the marker
 * says twice); with the parent not trusting it, neither starts it and the
 * child does not repeat the warning. Agent definitions shipped in an
 * untrusted project's manifest are not offered.
 */
import { expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { useModeEnv, type ModeEnv } from "../modes/helpers.ts";
import { gateLines, projectMarker, starts } from "./helpers.ts";

let env: ModeEnv;
useModeEnv((created) => {
  env = created;
  writeFileSync(join(env.home, "config.json"), JSON.stringify({ agents: true }));
});

type Body = { messages?: { role: string; content: unknown }[] };

function scriptSubagent(): void {
  env.server.enqueue(
    { type: "tool_calls", calls: [{ id: "call_a", name: "agent", arguments: { description: "look", prompt: "child task" } }] },
    { type: "text", text: "parent done" },
  );
  env.server.enqueueFor((body) => JSON.stringify((body as Body).messages?.[0]).includes("child task"), { type: "text", text: "child done" });
}

function childRan(): boolean {
  return env.server.requests.some((request) => JSON.stringify((request.body as Body).messages?.[0]).includes("child task"));
}

test("the child takes the parent's --trust: the project extension starts in both", async () => {
  const { marker } = projectMarker(env);
  scriptSubagent();
  const result = await env.run(["-p", "go", "--trust", ...env.providerArgs()], { timeoutMs: 60_000 });
  expect(result.code).toBe(0);
  expect(result.stdout).toContain("parent done");
  expect(childRan()).toBe(true);
  expect(starts(marker)).toBe(2);
}, 60_000);

test("an untrusted parent's child does not start it either, and warns nothing of its own", async () => {
  const { marker } = projectMarker(env);
  scriptSubagent();
  const result = await env.run(["-p", "go", ...env.providerArgs()], { timeoutMs: 60_000 });
  expect(result.code).toBe(0);
  expect(result.stdout).toContain("parent done");
  expect(childRan()).toBe(true);
  expect(starts(marker)).toBe(0);
  expect(gateLines(result.stderr)).toHaveLength(1);
}, 60_000);

test("agent definitions from an untrusted project manifest are not offered; trusted, they are", async () => {
  const bundle = join(env.cwd, ".zot", "extensions", "reviewers");
  mkdirSync(join(bundle, "agents"), { recursive: true });
  writeFileSync(join(bundle, "agents", "reviewer.md"), "---\nname: reviewer\ndescription: Reviews diffs for bugs.\n---\nYou review.\n");
  writeFileSync(join(bundle, "extension.json"), JSON.stringify({ name: "reviewers", agents: ["agents"] }));
  type Tools = { tools?: { name: string; description: string }[] };
  const agentTool = (index: number): string => ((env.server.requests[index]?.body as Tools).tools ?? []).find((tool) => tool.name === "agent")?.description ?? "";
  env.server.enqueue({ type: "text", text: "ok" }, { type: "text", text: "ok" });
  const untrusted = await env.run(["-p", "go", ...env.providerArgs()]);
  expect(gateLines(untrusted.stderr)[0]).toContain("reviewers");
  expect(agentTool(0)).not.toContain("reviewer: Reviews diffs");
  await env.run(["-p", "go", "--trust", ...env.providerArgs()]);
  expect(agentTool(1)).toContain("- reviewer: Reviews diffs for bugs.");
}, 60_000);
