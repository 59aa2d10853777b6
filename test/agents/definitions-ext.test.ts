/**
 * Agent definitions shipped by extensions through their manifest
 * (`"agents": [...]`), end to end through dist/zot and the stand-in model
 * server: an agents-only bundle's definitions are listed in the `agent`
 * tool's description and used (the body is the child's system prompt, the
 * tools apply); a user definition of the same name wins; an entry outside
 * the extension directory (lexically or by symlink) is a warning naming the
 * extension.
 */
import { expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { toolResultsSent, useModeEnv, type ModeEnv } from "../modes/helpers.ts";

let env: ModeEnv;
useModeEnv((created) => (env = created));

type Body = { system?: unknown; tools?: { name: string; description: string }[]; messages?: { role: string; content: unknown }[] };

function systemText(body: unknown): string {
  const system = (body as Body).system;
  if (typeof system === "string") return system;
  return Array.isArray(system) ? system.map((block) => (block as { text?: string }).text ?? "").join("") : "";
}

function bundle(): string {
  const dir = join(env.base, "reviewers");
  mkdirSync(join(dir, "agents"), { recursive: true });
  writeFileSync(join(dir, "agents", "reviewer.md"), "---\nname: reviewer\ndescription: Reviews diffs for bugs.\ntools: [read]\n---\nYou are the shipped reviewer.\n");
  writeFileSync(join(dir, "lone.md"), "---\ndescription: A single shipped file.\n---\nYou are lone.\n");
  mkdirSync(join(env.base, "outside"), { recursive: true });
  writeFileSync(join(env.base, "outside", "evil.md"), "---\ndescription: escaped\n---\nevil\n");
  symlinkSync(join(env.base, "outside"), join(dir, "linked"));
  writeFileSync(join(dir, "extension.json"), JSON.stringify({ name: "reviewers", agents: ["agents", "lone.md", "../outside", "linked"] }));
  return dir;
}

test("an extension's manifest ships agent definitions: listed, used, entries outside refused", async () => {
  const ext = bundle();
  env.server.enqueue(
    { type: "tool_calls", calls: [{ id: "call_r", name: "agent", arguments: { description: "review", prompt: "review it", agent: "reviewer" } }] },
    { type: "text", text: "done" },
  );
  env.server.enqueueFor((body) => JSON.stringify((body as Body).messages?.[0]).includes("review it"), { type: "text", text: "looks fine" });
  const result = await env.run(["-p", "go", "--ext", ext, ...env.providerArgs("anthropic")], { timeoutMs: 60_000 });
  expect(result.code).toBe(0);
  expect(result.stderr).toContain('extension "reviewers": agents entry "../outside" is outside the extension directory; ignored');
  expect(result.stderr).toContain('extension "reviewers": agents entry "linked" is outside the extension directory; ignored');
  const description = (env.server.requests[0]?.body as Body).tools?.find((tool) => tool.name === "agent")?.description ?? "";
  expect(description).toContain("- reviewer: Reviews diffs for bugs.");
  expect(description).toContain("- lone: A single shipped file.");
  expect(description).not.toContain("evil");
  const child = env.server.requests.find((request) => JSON.stringify((request.body as Body).messages?.[0]).includes("review it"));
  expect(systemText(child?.body)).toContain("You are the shipped reviewer.");
  const childTools = ((child?.body as Body).tools ?? []).map((tool) => tool.name);
  expect(childTools).toContain("read");
  expect(childTools).not.toContain("bash");
  expect(toolResultsSent(env.server.requests[env.server.requests.length - 1]).get("call_r")).toStartWith("looks fine");
}, 60_000);

test("a user definition of the same name overrides the extension's", async () => {
  const ext = bundle();
  mkdirSync(join(env.home, "agents"), { recursive: true });
  writeFileSync(join(env.home, "agents", "reviewer.md"), "---\ndescription: My own reviewer.\n---\nYou are mine.\n");
  env.server.enqueue({ type: "text", text: "ok" });
  const result = await env.run(["-p", "go", "--ext", ext, ...env.providerArgs("anthropic")], { timeoutMs: 60_000 });
  expect(result.code).toBe(0);
  const description = (env.server.requests[0]?.body as Body).tools?.find((tool) => tool.name === "agent")?.description ?? "";
  expect(description).toContain("- reviewer: My own reviewer.");
  expect(description).not.toContain("Reviews diffs");
}, 60_000);
