import { afterAll, describe, expect, test } from "bun:test";
import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { runZot, tempDir, zotBinary } from "../support/binary.ts";
import { behaveExtension, copyFixture, isAlive } from "../support/extensions.ts";
import { removeTempDirs } from "../support/temp.ts";

afterAll(removeTempDirs);

describe("the compiled binary", () => {
  test("runs alone: copied into an empty directory with PATH=/usr/bin:/bin and no node_modules", async () => {
    const dir = tempDir("zot-alone-");
    copyFileSync(await zotBinary(), join(dir, "zot"));
    const proc = Bun.spawn(["./zot", "--version"], { cwd: dir, env: { PATH: "/usr/bin:/bin", ZOT_HOME: join(dir, "home") }, stdout: "pipe", stderr: "pipe" });
    const [out, err] = [await new Response(proc.stdout).text(), await new Response(proc.stderr).text()];
    expect(await proc.exited).toBe(0);
    expect(err).toBe("");
    expect(out).toMatch(/^zot \d+\.\d+\.\d+ \([0-9a-f]{7}|unknown, \d{4}-\d{2}-\d{2}\)\n$/);
  });

  test("ignores a bunfig.toml and .env in the directory it runs from", async () => {
    const dir = tempDir("zot-sealed-");
    await Bun.write(join(dir, "bunfig.toml"), 'preload = ["./boom.ts"]\n');
    await Bun.write(join(dir, "boom.ts"), 'console.log("PRELOADED"); process.exit(9);\n');
    await Bun.write(join(dir, ".env"), "ZOT_HOME=/nonexistent/from-dotenv\n");
    const result = await runZot(["--version"], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain("PRELOADED");
  });

  test("--help lists the flags on stdout and exits 0", async () => {
    const result = await runZot(["--help"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("--ext <dir>");
    expect(result.stdout).toContain("zot ext <command>");
  });

  test("unknown flags and subcommands: one line plus usage hint, non-zero, no stack trace", async () => {
    for (const args of [["--frobnicate"], ["ext", "frobnicate"], ["ext", "list", "--frobnicate"], ["--model"]]) {
      const result = await runZot(args);
      expect(result.code).toBe(2);
      const lines = result.stderr.trimEnd().split("\n");
      expect(lines.length).toBe(2);
      expect(lines[0]).toMatch(/^zot: /);
      expect(lines[1]).toContain("--help");
      expect(result.stderr).not.toContain("    at ");
    }
  });

  test("no prompt and no terminal: a clear error instead of hanging", async () => {
    const result = await runZot([], { timeoutMs: 10_000 });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("needs a terminal");
  });

  test("--version does not start extensions", async () => {
    const home = tempDir("zot-home-");
    const marker = join(home, "spawned.json");
    behaveExtension(join(home, "extensions"), "watch", [`pid-file=${marker}`]);
    expect((await runZot(["--version"], { home })).code).toBe(0);
    expect((await runZot(["--help"], { home })).code).toBe(0);
    expect(await Bun.file(marker).exists()).toBe(false);
  });
});

describe("zot ext doctor through the binary", () => {
  test("reports loaded, auto-ready, failed and shadowed extensions and exits 1; finishes promptly with a silent extension", async () => {
    const home = tempDir("zot-home-");
    const root = join(home, "extensions");
    copyFixture(root, "py-hello");
    behaveExtension(root, "legacy", ["no-ready"]);
    const pidFile = join(home, "mute.json");
    behaveExtension(root, "mute", ["never-hello", `pid-file=${pidFile}`]);
    behaveExtension(root, "py-hello", ["command=dup"], "py-hello-copy");
    behaveExtension(root, "zz-clash", ["command=hellopy", "register-builtins"]);
    await Bun.write(join(root, "broken", "extension.json"), '{"name": "broken"}');
    const started = Date.now();
    const result = await runZot(["ext", "doctor"], { home, timeoutMs: 15_000, env: { ZOT_EXT_READY_TIMEOUT_MS: "3000" } });
    expect(Date.now() - started).toBeLessThan(8_000);
    expect(result.code).toBe(1);
    const out = result.stdout;
    expect(out).toContain("✓ py-hello 1.0.0 (global) — ready");
    expect(out).toContain("commands: /hellopy");
    expect(out).toContain("tools: weather");
    expect(out).toMatch(/legacy .*auto-ready/);
    expect(out).toContain('extension "mute" failed to load: sent no hello within');
    expect(out).toContain(`log: ${join(home, "logs", "ext-mute.log")}`);
    expect(out).toContain('broken/extension.json: field "exec": is required');
    expect(out).toMatch(/shadowed[^\n]*\n\s+- py-hello \(global\) .*py-hello-copy/);
    expect(out).toContain('zz-clash: tool "bash" not registered, already taken by built-in');
    expect(out).toContain("zz-clash: command /hellopy not registered, already taken by py-hello");
    expect(out).toContain('zz-clash: tool "py_echo" not registered, already taken by legacy');
    const { pid } = JSON.parse(await Bun.file(pidFile).text()) as { pid: number };
    expect(isAlive(pid)).toBe(false);
  });

  test("a healthy set exits 0", async () => {
    const home = tempDir("zot-home-");
    copyFixture(join(home, "extensions"), "py-hello");
    const result = await runZot(["ext", "doctor"], { home });
    expect(result.stdout).toContain("no problems found");
    expect(result.code).toBe(0);
  });
});
