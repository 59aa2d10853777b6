/**
 * common/platform.ts: the POSIX branches are what zot runs here (checked
 * for real: the shell argv runs and merges stderr), and the Windows
 * branches are pure functions of the platform and environment, checked
 * here by their inputs (shell choice: Git Bash, not the WSL launcher,
 * else cmd.exe; no `detached`; taskkill argv; no signal to a pid that is
 * not ours). Running them on Windows is not tested (docs/windows.md).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { isMuslLibc, ownGroupSpawnOptions, shellFor, shellInvocation, signalWindowsTree, taskkillArgv, type ShellLookup } from "../../src/common/platform.ts";
import { removeTempDirs, tempDir } from "../support/temp.ts";

afterAll(removeTempDirs);

function windows(env: Record<string, string>, files: readonly string[], onPath: string | null = null): ShellLookup {
  const present = new Set(files);
  return { platform: "win32", env, exists: (path) => present.has(path), which: (name) => (name === "bash" ? onPath : null) };
}

describe("POSIX", () => {
  test("the bash tool's shell is /bin/sh -c with stderr merged inside it", async () => {
    const { argv, shell } = shellInvocation("echo out; echo err >&2; exit 3");
    expect(argv).toEqual(["/bin/sh", "-c", 'exec 2>&1; exec /bin/sh -c "$1"', "zot-bash", "echo out; echo err >&2; exit 3"]);
    expect(shell.description).toBe("/bin/sh -c");
    const proc = Bun.spawn(argv, { stdout: "pipe", stderr: "pipe" });
    const [code, stdout, stderr] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
    expect({ code, stdout, stderr }).toEqual({ code: 3, stdout: "out\nerr\n", stderr: "" });
  });

  test("children ended as a tree get their own process group", () => {
    expect(ownGroupSpawnOptions("linux")).toEqual({ detached: true });
    expect(ownGroupSpawnOptions("darwin")).toEqual({ detached: true });
  });

  test("musl: only Linux, and a glibc runtime wins over an installed musl loader", () => {
    expect(isMuslLibc("darwin")).toBe(false);
    expect(isMuslLibc("win32")).toBe(false);
    const lib = tempDir("zot-platform-lib-");
    writeFileSync(join(lib, "ld-musl-x86_64.so.1"), "");
    const glibcHere = Boolean((process.report?.getReport() as { header?: { glibcVersionRuntime?: string } }).header?.glibcVersionRuntime);
    if (glibcHere) expect(isMuslLibc("linux", lib)).toBe(false);
    expect(isMuslLibc("linux", join(lib, "missing"))).toBe(false);
  });
});

describe("Windows branches (by their inputs)", () => {
  const programFiles = "C:\\Program Files";
  const gitBash = "C:\\Program Files\\Git\\bin\\bash.exe";

  test("Git for Windows' bash.exe is preferred", () => {
    const shell = shellFor(windows({ ProgramFiles: programFiles }, [gitBash]));
    expect(shell.argv).toEqual([gitBash, "-c", 'exec 2>&1; exec "$BASH" -c "$1"']);
    expect(shell.description).toBe(`Git Bash (${gitBash}) -c`);
    expect(shellInvocation("ls", windows({ ProgramFiles: programFiles }, [gitBash])).argv).toEqual([...shell.argv, "zot-bash", "ls"]);
  });

  test("a bash on PATH is used unless it is the WSL launcher in System32", () => {
    expect(shellFor(windows({}, [], "D:\\tools\\msys64\\usr\\bin\\bash.exe")).argv[0]).toBe("D:\\tools\\msys64\\usr\\bin\\bash.exe");
    const wsl = shellFor(windows({ SystemRoot: "C:\\WINDOWS", ComSpec: "C:\\WINDOWS\\system32\\cmd.exe" }, [], "C:\\Windows\\System32\\bash.exe"));
    expect(wsl.argv).toEqual(["C:\\WINDOWS\\system32\\cmd.exe", "/d", "/s", "/c"]);
  });

  test("without bash: cmd.exe /d /s /c with the command quoted verbatim", () => {
    const { argv, shell } = shellInvocation("dir /b & echo done", windows({}, []));
    expect(argv).toEqual(["cmd.exe", "/d", "/s", "/c", '"dir /b & echo done"']);
    expect(shell).toMatchObject({ description: "cmd.exe /C", verbatim: true, mergesStderr: false });
  });

  test("no detached (no console) and taskkill for the tree", () => {
    expect(ownGroupSpawnOptions("win32")).toEqual({ windowsHide: true });
    expect(taskkillArgv(4242)).toEqual(["taskkill", "/T", "/F", "/PID", "4242"]);
  });

  test("never signals a pid that is not a running child of ours", () => {
    // Our own pid is alive, but not "ours" as a child: refused before any taskkill.
    expect(signalWindowsTree(process.pid, "SIGKILL", false)).toBe(false);
    expect(signalWindowsTree(-1, "SIGKILL", true)).toBe(false);
    expect(signalWindowsTree(process.pid, 0, true)).toBe(true);
    expect(signalWindowsTree(process.pid, "SIGCONT", true)).toBe(true);
  });
});
