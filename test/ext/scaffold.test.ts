// `zot ext new` through the compiled binary: each language's scaffold is loaded by `zot --ext` at
// once (the model calls its tool and gets the echo back), passes `zot ext test`, and the command
// refuses to overwrite, names the path or field at fault, and leaves nothing half-written.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ConformanceReportJson } from "../../src/ext/conformance/report.ts";
import { REPO_ROOT, runZot, tempDir } from "../support/binary.ts";
import { toolResultsSent, useModeEnv, type ModeEnv } from "../modes/helpers.ts";

let env: ModeEnv;
useModeEnv((created) => (env = created));

describe("zot ext new", () => {
  // Python and ts scaffold their SDK's template (/hello, shout / greet); sh the raw-protocol program.
  const registers = (lang: string, name: string): { command: string; tool: string } =>
    lang === "python" ? { command: "hello", tool: "shout" } : lang === "ts" ? { command: "hello", tool: "greet" } : { command: name, tool: `${name}_echo` };
  for (const lang of ["ts", "python", "sh"] as const) {
    test(`--lang ${lang}: loads with --ext at once and passes zot ext test`, async () => {
      const name = `hello-${lang}`;
      const { command, tool } = registers(lang, name);
      const made = await env.run(["ext", "new", name, "--lang", lang], { cwd: env.base });
      expect(made.stderr).toContain(`zot ext test ${join(env.base, name)}`);
      expect(made.code).toBe(0);
      const dir = join(env.base, name);
      const manifest = JSON.parse(readFileSync(join(dir, "extension.json"), "utf8")) as { name: string; exec: string };
      expect(manifest.name).toBe(name);
      if (manifest.exec.startsWith("./")) expect(statSync(join(dir, manifest.exec)).mode & 0o111).not.toBe(0);
      if (lang === "ts") expect(readdirSync(join(dir, "zot-sdk")).sort()).toEqual(readdirSync(join(REPO_ROOT, "sdk", "typescript", "dist")).sort());
      if (lang === "python") expect(readdirSync(join(dir, "zot_extension")).sort()).toEqual(readdirSync(join(REPO_ROOT, "sdk", "python", "zot_extension")).filter((f) => !f.startsWith("__pycache__")).sort());
      expect(existsSync(join(dir, "README.md"))).toBe(true);

      const tested = await env.run(["ext", "test", dir, "--json"], { timeoutMs: 28_000 });
      const report = JSON.parse(tested.stdout) as ConformanceReportJson;
      expect(report.checks.filter((check) => check.status === "fail")).toEqual([]);
      expect(tested.code).toBe(0);
      expect(report.checks.map((check) => check.check)).toEqual(expect.arrayContaining([`tool ${tool}`, `command /${command}`, "shutdown", "eof"]));

      env.server.enqueue(
        { type: "tool_calls", calls: [{ id: "c1", name: tool, arguments: { text: "scaffolded", name: "scaffolded" } }] },
        { type: "text", text: "done" },
      );
      const run = await env.run(["-p", "echo it", ...env.providerArgs(), "--ext", dir], { timeoutMs: 28_000 });
      expect(run.stderr).not.toContain("error");
      expect(run.code).toBe(0);
      expect(toolResultsSent(env.server.requests[1]).get("c1")?.toLowerCase()).toContain("scaffolded");
    }, 60_000);
  }

  test("refuses to overwrite, validates the name and language, leaves nothing behind", async () => {
    const parent = tempDir("zot-new-");
    mkdirSync(join(parent, "taken"));
    writeFileSync(join(parent, "taken", "keep.txt"), "mine");
    const taken = await runZot(["ext", "new", "taken"], { cwd: parent });
    expect(taken.code).toBe(1);
    expect(taken.stderr).toContain(`${join(parent, "taken")} already exists; refusing to overwrite it`);
    expect(readdirSync(join(parent, "taken"))).toEqual(["keep.txt"]);

    const empty = join(parent, "empty");
    mkdirSync(empty);
    expect((await runZot(["ext", "new", "x", "--dir", empty], { cwd: parent })).code).toBe(1);
    expect(readdirSync(empty)).toEqual([]);

    const badName = await runZot(["ext", "new", "-x"], { cwd: parent });
    expect(badName.code).not.toBe(0);
    const dotName = await runZot(["ext", "new", ".hidden"], { cwd: parent });
    expect(dotName.code).toBe(1);
    expect(dotName.stderr).toContain('invalid extension name ".hidden"');

    const badLang = await runZot(["ext", "new", "x", "--lang", "go"], { cwd: parent });
    expect(badLang.code).toBe(2);
    expect(badLang.stderr).toBe(`zot: --lang must be one of ts, python, sh (got "go")\nrun 'zot ext new --help' for usage\n`);
    // The names people type: --lang py / typescript / shell.
    const py = await runZot(["ext", "new", "aliased", "--lang", "py"], { cwd: parent });
    expect(py.code).toBe(0);
    expect(py.stdout).toContain("created aliased (python)");
    rmSync(join(parent, "aliased"), { recursive: true, force: true });

    const noParent = await runZot(["ext", "new", "x", "--dir", join(parent, "missing", "x")], { cwd: parent });
    expect(noParent.code).toBe(1);
    expect(noParent.stderr).toContain(`${join(parent, "missing")} is not a directory`);

    // No staging directories (".<name>.new-*") or partial extensions remain.
    expect(readdirSync(parent).sort()).toEqual(["empty", "taken"]);

    const help = await runZot(["ext", "new", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("--lang");
    expect(help.stdout).toContain("--dir");
  }, 30_000);
});
