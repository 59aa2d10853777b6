/**
 * `zot ext list` and `zot ext doctor` and project trust, through dist/zot:
 * list shows each project extension's trust state (untrusted / trusted /
 * changed; "-" for global ones, which are never gated); doctor never spawns
 * an untrusted project extension (its program writes no marker) unless
 * --trust is given, and says which were not started and why.
 */
import { expect, test } from "bun:test";
import { appendFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { useModeEnv, type ModeEnv } from "../modes/helpers.ts";
import { markerExtension, projectMarker, starts } from "./helpers.ts";

let env: ModeEnv;
useModeEnv((created) => (env = created));

const T = 60_000;

function trustCell(stdout: string, name: string): string | undefined {
  // scope name version enabled language dir trust
  const row = stdout.split("\n").map((line) => line.split(/\s+/)).find((cells) => cells[1] === name);
  return row?.[6];
}

test("ext list shows the project's trust state per extension", async () => {
  const { dir } = projectMarker(env);
  markerExtension(join(env.home, "extensions"), "mine", join(env.base, "mine.started"));
  const before = await env.run(["ext", "list"]);
  expect(before.code).toBe(0);
  expect(trustCell(before.stdout, "marker")).toBe("untrusted");
  expect(trustCell(before.stdout, "mine")).toBe("-");
  await env.run(["trust"]);
  expect(trustCell((await env.run(["ext", "list"])).stdout, "marker")).toBe("trusted");
  appendFileSync(join(dir, "main.sh"), "# edited\n");
  expect(trustCell((await env.run(["ext", "list"])).stdout, "marker")).toBe("changed");
}, T);

test("ext doctor does not start an untrusted project extension; --trust does; a trusted one starts", async () => {
  const { marker } = projectMarker(env);
  const untrusted = await env.run(["ext", "doctor"]);
  expect(starts(marker)).toBe(0);
  expect(untrusted.code).toBe(0);
  expect(untrusted.stdout).toContain("project trust: untrusted");
  expect(untrusted.stdout).toContain("- marker (project, untrusted) — not started");
  expect(untrusted.stdout).toContain(`'zot trust ${env.cwd}'`);
  expect(untrusted.stdout).toContain("extensions loaded: 0");

  const forced = await env.run(["ext", "doctor", "--trust"]);
  expect(starts(marker)).toBe(1);
  expect(forced.stdout).toContain("✓ marker 1.0.0 (project) — ready");
  expect(forced.stdout).toContain("project trust: untrusted (started anyway: --trust or ZOT_TRUST=1)");
  await env.run(["ext", "doctor"], { env: { ZOT_TRUST: "1" } });
  expect(starts(marker)).toBe(2);

  await env.run(["trust"]);
  const trusted = await env.run(["ext", "doctor"]);
  expect(starts(marker)).toBe(3);
  expect(trusted.stdout).toContain("project trust: trusted");

  writeFileSync(join(env.cwd, ".zot", "mcp.json"), "{}");
  const changed = await env.run(["ext", "doctor"]);
  expect(starts(marker)).toBe(3);
  expect(changed.stdout).toContain("project trust: changed");
  expect(changed.stdout).toContain("- marker (project, untrusted) — not started");
}, T);
