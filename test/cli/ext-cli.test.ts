/**
 * `zot ext` end to end through the compiled binary in a temp ZOT_HOME:
 * install (path and file:// git), list, disable/enable, remove, logs (print
 * and -f), and the exit-2 usage errors.
 */
import { describe, expect, test } from "bun:test";
import { appendFileSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type RunResult, cleanEnv, runZot, zotBinary } from "../support/binary.ts";
import { useProjectDirs } from "../support/env-hooks.ts";
import { PROCESS_MANIFEST, makeBareRepo, writeExtension } from "../fixtures/ext-install/make.ts";

let base: string;
let home: string;
let cwd: string;
useProjectDirs("zot-ext-cli-", (dirs) => ({ base, home, cwd } = dirs));

function ext(args: readonly string[], stdin?: string): Promise<RunResult> {
  return runZot(["ext", ...args], { home, cwd, stdin });
}

function expectUsageError(result: RunResult, line: string): void {
  expect(result.code).toBe(2);
  expect(result.stdout).toBe("");
  expect(result.stderr).toBe(`zot: ${line}\nrun 'zot ext --help' for usage\n`);
}

describe("zot ext usage", () => {
  test("no arguments and --help print usage on stdout", async () => {
    for (const args of [[], ["--help"], ["help"]]) {
      const result = await ext(args);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain("USAGE zot ext list|doctor|install|remove|rm|enable|disable|logs");
      expect(result.stdout).not.toContain("\u001B[");
      expect(result.stderr).toBe("");
    }
  });

  test("subcommand help shows its arguments and flags", async () => {
    const result = await ext(["remove", "--help"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("zot ext remove");
    expect(result.stdout).toContain("-y, --yes");
  });

  test("unknown subcommands, unknown flags and missing arguments exit 2 with one line and a hint", async () => {
    expectUsageError(await ext(["frobnicate"]), 'unknown ext command "frobnicate"');
    expectUsageError(await ext(["--frob"]), 'unknown flag "--frob"');
    expectUsageError(await ext(["list", "--all"]), 'unknown flag "--all"');
    expectUsageError(await ext(["remove", "-x", "todo"]), 'unknown flag "-x"');
    expectUsageError(await ext(["enable"]), "'zot ext enable' needs a <name> argument");
    expectUsageError(await ext(["logs", "a", "b"]), "unexpected argument \"b\" for 'zot ext logs'");
    expectUsageError(await ext(["install", "--name"]), 'flag "--name" needs a value');
  });
});

describe("zot ext lifecycle", () => {
  test("nothing installed says so on stderr and exits 0", async () => {
    const result = await ext(["list"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("");
    expect(result.stderr).toStartWith("no extensions installed\n");
  });

  test("install from a path and from git, list, disable, enable, remove", async () => {
    const source = writeExtension(join(base, "src", "hello"), PROCESS_MANIFEST, { "hello.sh": "#!/bin/sh\n" });
    const bare = makeBareRepo(join(base, "repos"), "zot-todo", { name: "todo", exec: "./todo", description: "track todos" });
    const globalRoot = join(home, "extensions");

    const fromPath = await ext(["install", source]);
    expect(fromPath.stderr).toBe("");
    expect(fromPath.stdout).toBe(`installed hello 1.2.3 → ${join(globalRoot, "hello")}\n`);
    expect(fromPath.code).toBe(0);

    const fromGit = await ext(["install", "--project", `file://${bare}`]);
    const projectDir = join(cwd, ".zot", "extensions", "zot-todo");
    expect(fromGit.stdout).toBe(`installed todo → ${projectDir}\n`);
    expect(fromGit.code).toBe(0);

    const listed = await ext(["list"]);
    expect(listed.code).toBe(0);
    // The original's layout (`%-12s  %-20s  %-10s  %-8s  %-10s  %s`: scope name version enabled language dir, no header),
    // byte for byte, then zot's trust column (a project extension shows its project's state; global ones are never gated)
    // and the manifest's description when there is one (extensions.md: "shown in zot ext list").
    expect(listed.stdout).toBe(
      `${"project".padEnd(12)}  ${"todo".padEnd(20)}  ${"-".padEnd(10)}  ${"yes".padEnd(8)}  ${"-".padEnd(10)}  ${projectDir}  untrusted  track todos\n` +
        `${"global".padEnd(12)}  ${"hello".padEnd(20)}  ${"1.2.3".padEnd(10)}  ${"yes".padEnd(8)}  ${"-".padEnd(10)}  ${join(globalRoot, "hello")}  -  says hello\n`,
    );
    // What a script written for the original does with it still works.
    expect(listed.stdout.trimEnd().split("\n").map((line) => line.split(/\s+/)[1])).toEqual(["todo", "hello"]);

    const disabled = await ext(["disable", "zot-todo"]);
    expect(disabled).toMatchObject({ code: 0, stdout: "disabled todo\n" });
    expect(JSON.parse(readFileSync(join(projectDir, "extension.json"), "utf8"))).toEqual({
      name: "todo", exec: "./todo", description: "track todos", enabled: false,
    });
    expect((await ext(["list"])).stdout).toMatch(/^project\s+todo\s+-\s+no\s/m);
    expect((await ext(["disable", "todo"])).stdout).toBe("todo is already disabled\n");

    expect(await ext(["enable", "todo"])).toMatchObject({ code: 0, stdout: "enabled todo\n" });
    expect((await ext(["list"])).stdout).toMatch(/^project\s+todo\s+-\s+yes\s/m);

    const refused = await ext(["remove", "hello"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("pass --yes");
    expect(existsSync(join(globalRoot, "hello"))).toBe(true);

    expect(await ext(["rm", "-y", "hello"])).toMatchObject({ code: 0, stdout: `removed ${join(globalRoot, "hello")}\n` });
    expect(await ext(["remove", "--yes", "todo"])).toMatchObject({ code: 0, stdout: `removed ${projectDir}\n` });
    expect(readdirSync(globalRoot)).toEqual([]);
    expect((await ext(["list"])).stderr).toStartWith("no extensions installed");
  });

  test.skipIf(!Bun.which("script"))("remove on a terminal asks on stderr; only y proceeds", async () => {
    const dir = writeExtension(join(home, "extensions", "hello"), PROCESS_MANIFEST);
    const binary = await zotBinary();
    const onTerminal = async (answer: string): Promise<{ code: number; output: string }> => {
      const proc = Bun.spawn(["script", "-qec", `'${binary}' ext remove hello`, "/dev/null"], {
        cwd, env: cleanEnv(home), stdin: new TextEncoder().encode(answer), stdout: "pipe", stderr: "pipe",
      });
      const output = await new Response(proc.stdout).text();
      return { code: await proc.exited, output };
    };
    const declined = await onTerminal("n\n");
    expect(declined.output).toContain(`remove ${dir}? [y/N]`);
    expect(declined.output).toContain("aborted; nothing removed");
    expect(declined.code).toBe(1);
    expect(existsSync(dir)).toBe(true);
    const accepted = await onTerminal("y\n");
    expect(accepted.output).toContain(`removed ${dir}`);
    expect(accepted.code).toBe(0);
    expect(existsSync(dir)).toBe(false);
  });

  test("a second install of the same directory fails and changes nothing", async () => {
    const source = writeExtension(join(base, "src", "hello"), PROCESS_MANIFEST);
    expect((await ext(["install", source])).code).toBe(0);
    const again = await ext(["install", source]);
    expect(again.code).toBe(1);
    expect(again.stderr).toBe(`zot: ${join(home, "extensions", "hello")} already exists; run 'zot ext remove hello' first\n`);
  });

  test("a bad manifest is not a row (as in the original) but a warning naming it on stderr", async () => {
    writeExtension(join(home, "extensions", "broken"), '{"name": "broken"}');
    writeExtension(join(home, "extensions", "fine"), { name: "fine", exec: "./x", language: "python" });
    const listed = await ext(["list"]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^global {8}fine {18}- {11}yes {7}python {6}\S+fine  -\n$/);
    expect(listed.stderr).toMatch(/^zot: warning: \S+broken\/extension\.json: field "exec".*\(not listed\)\n$/);
  });

  test("an ambiguous name lists the matches, exits 1 and changes nothing", async () => {
    const byDir = writeExtension(join(home, "extensions", "todo"), { name: "first", exec: "./x" });
    const byName = writeExtension(join(cwd, ".zot", "extensions", "zot-todo"), { name: "todo", exec: "./x" });
    const result = await ext(["remove", "--yes", "todo"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(byDir);
    expect(result.stderr).toContain(byName);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(byDir) && existsSync(byName)).toBe(true);
  });
});

describe("zot ext logs", () => {
  test("prints the log by manifest or directory name; a missing log is an error", async () => {
    writeExtension(join(home, "extensions", "zot-todo"), { name: "todo", exec: "./x" });
    mkdirSync(join(home, "logs"));
    writeFileSync(join(home, "logs", "ext-todo.log"), "started\nworking\n");
    expect(await ext(["logs", "todo"])).toMatchObject({ code: 0, stdout: "started\nworking\n" });
    expect(await ext(["logs", "zot-todo"])).toMatchObject({ code: 0, stdout: "started\nworking\n" });
    const missing = await ext(["logs", "ghost"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(`zot: no log for "ghost" at ${join(home, "logs", "ext-ghost.log")}\n`);
  });

  test("-f follows appended lines until SIGINT, then exits 0", async () => {
    const logPath = join(home, "logs", "ext-live.log");
    mkdirSync(join(home, "logs"));
    writeFileSync(logPath, "one\n");
    const proc = Bun.spawn([await zotBinary(), "ext", "logs", "-f", "live"], {
      cwd, env: cleanEnv(home), stdin: "ignore", stdout: "pipe", stderr: "pipe",
    });
    const killer = setTimeout(() => proc.kill("SIGKILL"), 15_000);
    const reader = proc.stdout.getReader();
    const decoder = new TextDecoder();
    let output = "";
    const readUntil = async (needle: string): Promise<void> => {
      while (!output.includes(needle)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`stdout closed before ${JSON.stringify(needle)}; got ${JSON.stringify(output)}`);
        output += decoder.decode(value, { stream: true });
      }
    };
    try {
      await readUntil("one\n");
      appendFileSync(logPath, "two\n");
      await readUntil("two\n");
      appendFileSync(logPath, "three\n");
      await readUntil("three\n");
      proc.kill("SIGINT");
      expect(await proc.exited).toBe(0);
      expect(output).toBe("one\ntwo\nthree\n");
    } finally {
      clearTimeout(killer);
      proc.kill("SIGKILL");
    }
  });
});
