/**
 * Project trust through dist/zot in the headless modes (issue 15): an
 * untrusted project's own extensions are not started (their program writes
 * no marker) and one stderr line names them and the three ways to allow
 * them; --trust, `zot trust` and ZOT_TRUST=1 start them; an edit after
 * trusting (the program, or a new .zot/mcp.json) is "changed"; global
 * extensions are never gated (and are not shadowed by an untrusted project
 * extension of the same name); skills from an untrusted project manifest do
 * not load; a corrupted trust.json is "nothing trusted" with a warning and
 * is kept as a copy before it is replaced; the JSON and RPC modes gate alike.
 */
import { describe, expect, test } from "bun:test";
import { appendFileSync, existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { useModeEnv, type ModeEnv } from "../modes/helpers.ts";
import { gateLines, markerExtension, projectMarker, starts, storedProjects, trustFile } from "./helpers.ts";

let env: ModeEnv;
useModeEnv((created) => (env = created));

const T = 60_000;

async function print(args: readonly string[] = [], extraEnv: Record<string, string> = {}) {
  env.server.enqueue({ type: "text", text: "answer" });
  const result = await env.run(["-p", "hi", ...args, ...env.providerArgs()], { env: extraEnv });
  expect(result.stdout).toContain("answer");
  expect(result.code).toBe(0);
  return result;
}

describe("headless gate", () => {
  test("an untrusted project's extension is not started; one line names it and the three ways to allow it", async () => {
    const { marker } = projectMarker(env);
    const result = await print();
    expect(starts(marker)).toBe(0);
    const lines = gateLines(result.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("project extensions not started: marker");
    expect(lines[0]).toContain(`${env.cwd} is not trusted`);
    expect(lines[0]).toContain("--trust");
    expect(lines[0]).toContain(`zot trust ${env.cwd}`);
    expect(lines[0]).toContain("ZOT_TRUST=1");
    // Nothing is recorded by a headless run.
    expect(existsSync(trustFile(env))).toBe(false);
  }, T);

  test("--trust starts it for this run only; ZOT_TRUST=1 too", async () => {
    const { marker } = projectMarker(env);
    const trusted = await print(["--trust"]);
    expect(starts(marker)).toBe(1);
    expect(gateLines(trusted.stderr)).toEqual([]);
    expect(existsSync(trustFile(env))).toBe(false);
    const ci = await print([], { ZOT_TRUST: "1" });
    expect(starts(marker)).toBe(2);
    expect(gateLines(ci.stderr)).toEqual([]);
    // Neither was recorded: a plain run is gated again.
    await print();
    expect(starts(marker)).toBe(2);
  }, T);

  test("zot trust records it (0600); later runs start it; an edit of its program is 'changed' and it stops starting", async () => {
    const { dir, marker } = projectMarker(env);
    const trusted = await env.run(["trust"]);
    expect(trusted.code).toBe(0);
    expect(trusted.stdout).toStartWith(`trusted ${env.cwd} (fingerprint `);
    expect(trusted.stdout).toContain("marker  sh main.sh  (shell)");
    expect(trusted.stdout).toContain(join(dir, "main.sh"));
    expect(statSync(trustFile(env)).mode & 0o777).toBe(0o600);
    expect(storedProjects(env)[env.cwd]?.decision).toBe("trusted");

    const run = await print();
    expect(starts(marker)).toBe(1);
    expect(gateLines(run.stderr)).toEqual([]);

    appendFileSync(join(dir, "main.sh"), "# an edit\n");
    const changed = await print();
    expect(starts(marker)).toBe(1);
    const lines = gateLines(changed.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("changed since trusted on ");
    expect(lines[0]).toContain("marker changed");
  }, T);

  test("a new .zot/mcp.json changes the fingerprint of a trusted project", async () => {
    const { marker } = projectMarker(env);
    expect((await env.run(["trust"])).code).toBe(0);
    writeFileSync(join(env.cwd, ".zot", "mcp.json"), JSON.stringify({ mcpServers: { evil: { command: "sh" } } }));
    const changed = await print();
    expect(starts(marker)).toBe(0);
    expect(gateLines(changed.stderr)[0]).toContain(".zot/mcp.json added");
    const again = await env.run(["trust"]);
    expect(again.stdout).toContain(".zot/mcp.json  MCP servers");
    await print();
    expect(starts(marker)).toBe(1);
  }, T);

  test("the line says what was not started: project MCP servers alone, or extensions and MCP servers", async () => {
    const mcpMarker = join(env.base, "mcp.started");
    mkdirSync(join(env.cwd, ".zot"), { recursive: true });
    writeFileSync(join(env.cwd, ".zot", "mcp.json"), JSON.stringify({ mcpServers: { proj: { command: "sh", args: ["-c", `echo started >> '${mcpMarker}'`] } } }));
    const onlyMcp = gateLines((await print()).stderr);
    expect(onlyMcp).toEqual([
      `zot: warning: project MCP servers not started: ./.zot/mcp.json (${env.cwd} is not trusted); allow with --trust (this run), 'zot trust ${env.cwd}' (record it) or ZOT_TRUST=1 (CI images)`,
    ]);
    expect(starts(mcpMarker)).toBe(0);
    const { marker } = projectMarker(env);
    const both = gateLines((await print()).stderr);
    expect(both).toHaveLength(1);
    expect(both[0]).toStartWith(`zot: warning: project extensions and MCP servers not started: marker, ./.zot/mcp.json (${env.cwd} is not trusted); allow with --trust`);
    expect([starts(marker), starts(mcpMarker)]).toEqual([0, 0]);
    // The three ways to allow it start both (the MCP "server" here exits at once: only its start is checked).
    await print(["--trust"]);
    expect([starts(marker), starts(mcpMarker)]).toEqual([1, 1]);
  }, T);

  test("zot untrust forgets the decision; trust --list shows dir, decision, date and whether it still matches", async () => {
    const { dir, marker } = projectMarker(env);
    expect((await env.run(["trust", "--list"])).stderr).toContain("no projects recorded");
    await env.run(["trust"]);
    const listed = await env.run(["trust", "--list"]);
    expect(listed.code).toBe(0);
    const rows = listed.stdout.trimEnd().split("\n").map((line) => line.split(/\s{2,}/));
    expect(rows[0]).toEqual(["DIRECTORY", "DECISION", "DATE", "NOW"]);
    expect(rows[1]?.[0]).toBe(env.cwd);
    expect(rows[1]?.[1]).toBe("trusted");
    expect(rows[1]?.[2]).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    expect(rows[1]?.[3]).toBe("matches");
    appendFileSync(join(dir, "extension.json"), "\n");
    expect((await env.run(["trust", "--list"])).stdout).toMatch(/trusted\s+\S+ \S+\s+changed\n$/);

    await env.run(["trust"]);
    const forgotten = await env.run(["untrust"]);
    expect(forgotten).toMatchObject({ code: 0, stdout: `untrusted ${env.cwd}\n` });
    expect(storedProjects(env)).toEqual({});
    await print();
    expect(starts(marker)).toBe(0);
    expect((await env.run(["untrust"])).stderr).toContain("was not recorded");
  }, T);

  test("trust and untrust have --help; bad arguments are usage errors (exit 2)", async () => {
    const help = await env.run(["trust", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("usage: zot trust [dir]");
    expect(help.stdout).toContain("ZOT_TRUST=1");
    expect((await env.run(["untrust", "-h"])).stdout).toContain("zot untrust [dir]");
    const bad = await env.run(["trust", "--bogus"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('unknown flag "--bogus"');
    expect((await env.run(["trust", "a", "b"])).code).toBe(2);
    const missing = await env.run(["trust", join(env.base, "nope")]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("is not a directory");
    const empty = await env.run(["trust"]);
    expect(empty.code).toBe(0);
    expect(empty.stderr).toContain("nothing to trust");
  }, T);

  test("global extensions are never gated, and an untrusted project extension does not shadow a global one of its name", async () => {
    const globalMarker = join(env.base, "global.started");
    markerExtension(join(env.home, "extensions"), "shared", globalMarker);
    const { marker } = projectMarker(env, "shared");
    const result = await print();
    expect(starts(marker)).toBe(0);
    expect(starts(globalMarker)).toBe(1);
    expect(gateLines(result.stderr)[0]).toContain("project extensions not started: shared");
    // Trusted, the project's copy wins the name as before.
    await print(["--trust"]);
    expect(starts(marker)).toBe(1);
    expect(starts(globalMarker)).toBe(1);
  }, T);

  test("an --ext path is never gated", async () => {
    const extMarker = join(env.base, "flag.started");
    const dir = markerExtension(join(env.base, "mine"), "flagged", extMarker);
    projectMarker(env);
    await print(["--ext", dir]);
    expect(starts(extMarker)).toBe(1);
  }, T);

  test("skills shipped in an untrusted project manifest do not load", async () => {
    const bundle = join(env.cwd, ".zot", "extensions", "skillpack");
    mkdirSync(join(bundle, "skills", "deploy-prod"), { recursive: true });
    writeFileSync(join(bundle, "skills", "deploy-prod", "SKILL.md"), "---\nname: deploy-prod\ndescription: Deploys to production.\n---\nRun it.\n");
    writeFileSync(join(bundle, "extension.json"), JSON.stringify({ name: "skillpack", skills: ["skills"] }));
    const untrusted = await print();
    expect(gateLines(untrusted.stderr)[0]).toContain("skillpack");
    expect(JSON.stringify(env.server.requests[0]?.body)).not.toContain("deploy-prod");
    await print(["--trust"]);
    expect(JSON.stringify(env.server.requests[1]?.body)).toContain("deploy-prod");
  }, T);

  test("JSON mode gates alike", async () => {
    const { marker } = projectMarker(env);
    env.server.enqueue({ type: "text", text: "answer" });
    const result = await env.run(["--json", "hi", ...env.providerArgs()]);
    expect(result.code).toBe(0);
    expect(starts(marker)).toBe(0);
    expect(gateLines(result.stderr)).toHaveLength(1);
  }, T);
});

test("RPC mode gates alike", async () => {
  const { marker } = projectMarker(env);
  env.server.enqueue({ type: "text", text: "answer" });
  const result = await env.run(["rpc", ...env.providerArgs()], { stdin: `${JSON.stringify({ type: "prompt", id: "p1", message: "hi" })}\n` });
  expect(result.code).toBe(0);
  expect(result.stdout).toContain("answer");
  expect(starts(marker)).toBe(0);
  expect(gateLines(result.stderr)).toHaveLength(1);
}, T);

describe("a corrupted trust.json", () => {
  test("is nothing trusted plus a warning naming it; zot trust keeps a copy before replacing it", async () => {
    const { marker } = projectMarker(env);
    mkdirSync(env.home, { recursive: true });
    writeFileSync(trustFile(env), "{ not json");
    const run = await print();
    expect(starts(marker)).toBe(0);
    expect(run.stderr).toContain(`zot: warning: ${trustFile(env)} is not valid JSON`);
    expect(run.stderr).toContain("treated as nothing trusted");

    writeFileSync(trustFile(env), JSON.stringify({ version: 1, projects: { [env.cwd]: { decision: "maybe" } } }));
    expect((await print()).stderr).toContain("is not a trust store");
    expect(starts(marker)).toBe(0);

    const trusted = await env.run(["trust"]);
    expect(trusted.code).toBe(0);
    expect(trusted.stderr).toContain("kept a copy as ");
    const copies = readdirSync(env.home).filter((name) => name.startsWith("trust.json.corrupt-"));
    expect(copies).toHaveLength(1);
    await print();
    expect(starts(marker)).toBe(1);
  }, T);

  test("one that cannot be read (a directory) is nothing trusted for a run; zot trust refuses to replace it", async () => {
    const { marker } = projectMarker(env);
    mkdirSync(trustFile(env), { recursive: true });
    const run = await print();
    expect(starts(marker)).toBe(0);
    expect(run.stderr).toContain(`${trustFile(env)} cannot be read (not a regular file); treated as nothing trusted`);
    expect(gateLines(run.stderr)).toHaveLength(1);
    const list = await env.run(["ext", "list"]);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^project\s+marker\s.*\suntrusted$/m);
    const refused = await env.run(["trust"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`${trustFile(env)} cannot be read (not a regular file)`);
  }, T);
});
