/**
 * A relative ZOT_HOME (`ZOT_HOME=.zot-state` in a CI job) with `--cwd`
 * pointing elsewhere, through dist/zot: the home is the directory under
 * where zot was started, and every path zot hands out is absolute — the
 * bash tool's full-output file named in a result can be opened from the
 * project (it was `.zot-state/tmp/zot-bash-….log`, relative, which the
 * model's tools resolved against --cwd), and the commands zot starts see
 * the absolute ZOT_HOME. A leading `~/`, which no shell expanded (GitHub
 * Actions' `env:`, `docker -e`), is the user's home: the sessions used to go
 * to a directory named `~` inside the checkout.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { resolveZotHome } from "../../src/common/home.ts";
import { useModeEnv, type ModeEnv } from "./helpers.ts";

let env: ModeEnv;
useModeEnv((created) => (env = created));

describe("a relative ZOT_HOME", () => {
  test("anchored where zot started: the full-output path and the commands' ZOT_HOME are absolute", async () => {
    env.server.enqueue(
      { type: "tool_calls", calls: [{ id: "toolu_1", name: "bash", arguments: { command: 'seq 1 5000; echo "home=$ZOT_HOME"' } }] },
      { type: "text", text: "done" },
    );
    const state = join(env.base, "state");
    const result = await env.run(["--json", "go", "--cwd", env.cwd, "--no-session", ...env.providerArgs()], { cwd: env.base, env: { ZOT_HOME: "state" } });
    expect(result.code).toBe(0);
    const toolResult = result.stdout.split("\n").find((line) => line.startsWith('{"type":"tool_result"')) ?? "";
    const text = (JSON.parse(toolResult) as { content: { text: string }[] }).content[0]?.text ?? "";
    expect(text).toContain(`home=${state}\n`);
    const spill = /full output: ([^)]+)\)/.exec(text)?.[1] ?? "";
    expect(spill).toStartWith(`${join(state, "tmp")}/`);
    expect(existsSync(spill)).toBe(true);
  });

  test("ZOT_HOME=~/.zot as GitHub Actions' env: passes it (no shell expands the ~): the user's home, not a ~ directory in the checkout", async () => {
    const userHome = join(env.base, "user-home");
    mkdirSync(userHome);
    env.server.enqueue({ type: "text", text: "saved" });
    const result = await env.run(["-p", "hi", ...env.providerArgs()], { cwd: env.cwd, env: { ZOT_HOME: "~/.zot", HOME: userHome } });
    expect([result.code, result.stdout]).toEqual([0, "saved\n"]);
    expect(existsSync(join(env.cwd, "~"))).toBe(false);
    expect(readdirSync(join(userHome, ".zot", "sessions")).length).toBe(1);
  });

  test("resolveZotHome anchors relative ZOT_HOME and XDG_STATE_HOME at the given directory", () => {
    const base = { platform: "linux" as const, home: "/home/pat", cwd: "/work/job" };
    expect(resolveZotHome({ ...base, env: { ZOT_HOME: ".zot-state" } })).toBe("/work/job/.zot-state");
    expect(resolveZotHome({ ...base, env: { XDG_STATE_HOME: "state" } })).toBe("/work/job/state/zot");
    expect(resolveZotHome({ ...base, env: { ZOT_HOME: "/abs" } })).toBe("/abs");
    expect(resolveZotHome({ ...base, env: { ZOT_HOME: "~/.zot" } })).toBe("/home/pat/.zot");
    expect(resolveZotHome({ ...base, env: { ZOT_HOME: "~" } })).toBe("/home/pat");
    expect(resolveZotHome({ ...base, env: { XDG_STATE_HOME: "~/.local/state" } })).toBe("/home/pat/.local/state/zot");
  });
});
