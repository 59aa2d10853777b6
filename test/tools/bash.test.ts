import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, readlinkSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { createBashTool, formatDuration } from "../../src/tools/index.ts";
import { cleanupTempDirs, makeContext, tempDir, textOf } from "./helpers.ts";
import { isAlive } from "../support/processes.ts";

afterAll(cleanupTempDirs);

const spillDir = `${tempDir("zot-spill-")}/tmp`;
const bash = createBashTool({ spillDir });


async function waitUntilGone(pids: readonly number[], ms: number): Promise<number[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    const living = pids.filter(isAlive);
    if (living.length === 0 || Date.now() > deadline) return living;
    await Bun.sleep(50);
  }
}

function pidsIn(text: string): number[] {
  return [...text.matchAll(/pid:(\d+)/g)].map((match) => Number(match[1]));
}

describe("bash: running commands", () => {
  test("echo: layout, exit 0, cwd, progress streamed", async () => {
    const dir = tempDir();
    const ctx = makeContext(dir);
    const outcome = await bash.execute({ command: "echo hello; pwd" }, ctx);
    expect(outcome.isError).toBe(false);
    expect(outcome.status).toBeUndefined();
    expect(textOf(outcome)).toMatch(new RegExp(`^\\$ echo hello; pwd\\n\\nhello\\n${dir}\\n\\n\\[exit 0\\]  Took \\d+\\.\\ds$`));
    expect(ctx.progress.join("")).toBe(`hello\n${dir}\n`);
    expect(outcome.details).toMatchObject({ exit_code: 0, full_output_path: undefined });
    expect(typeof outcome.details?.duration_ms).toBe("number");
  });

  test("a non-zero exit is an error with the exit code", async () => {
    const outcome = await bash.execute({ command: "echo failing; exit 3" }, makeContext(tempDir()));
    expect(outcome.isError).toBe(true);
    expect(outcome.details?.exit_code).toBe(3);
    expect(textOf(outcome)).toMatch(/^\$ echo failing; exit 3\n\nfailing\n\n\[exit 3\]  Took \d+\.\ds$/);
  });

  test("no output: no body, a blank line before [exit N]; a missing final newline is added", async () => {
    const ctx = makeContext(tempDir());
    expect(textOf(await bash.execute({ command: "true" }, ctx))).toMatch(/^\$ true\n\n\[exit 0\]  Took \d+\.\ds$/);
    expect(textOf(await bash.execute({ command: "printf x" }, ctx))).toMatch(/^\$ printf x\n\nx\n\n\[exit 0\]  Took \d+\.\ds$/);
  });

  test("stderr is merged with stdout in order, syntax errors included", async () => {
    const ctx = makeContext(tempDir());
    const outcome = await bash.execute({ command: "echo one; echo two >&2; echo three; echo four >&2" }, ctx);
    expect(textOf(outcome)).toContain("\n\none\ntwo\nthree\nfour\n\n[exit 0]");
    const syntax = await bash.execute({ command: "if then fi (" }, ctx);
    expect(syntax.isError).toBe(true);
    expect(textOf(syntax).toLowerCase()).toContain("syntax error");
  });

  test("long output keeps the tail and saves the full output to a 0600 file in a 0700 directory", async () => {
    const outcome = await bash.execute({ command: "seq 1 30000" }, makeContext(tempDir()));
    const text = textOf(outcome);
    const path = outcome.details?.full_output_path;
    expect(typeof path).toBe("string");
    if (typeof path !== "string") return;
    expect(dirname(path)).toBe(spillDir);
    expect(path).toMatch(/zot-bash-[0-9a-f]{12}\.log$/);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(spillDir).mode & 0o777).toBe(0o700);
    const expected = Array.from({ length: 30000 }, (_, i) => `${i + 1}`).join("\n") + "\n";
    expect(readFileSync(path, "utf8")).toBe(expected);
    // The last 50 KiB hold more than 2000 lines, so both limits apply (the original's order: lines, then bytes).
    const notes = "... [truncated at 2000 lines: showing the last 2000 of 30000 lines]\n" +
      "... [truncated at 51200 bytes: showing the last 12000 of 168894 bytes]\n";
    const tail = `\n29999\n30000\n${notes}\n[exit 0] (full output: ${path})  Took `;
    expect(text.includes(tail)).toBe(true);
    expect(text.startsWith("$ seq 1 30000\n\n28001\n")).toBe(true);
    const body = text.slice("$ seq 1 30000\n\n".length, text.indexOf("... [truncated"));
    expect(Buffer.byteLength(body)).toBe(12000);
    expect(expected.endsWith(body)).toBe(true);
    // The kept tail starts at a line boundary, not mid-number.
    expect(expected[expected.length - body.length - 1]).toBe("\n");
    expect(outcome.details).toMatchObject({ bytes_truncated: true });
  });

  test("more than 2000 short lines keep the last 2000", async () => {
    const outcome = await bash.execute({ command: "seq 1 2500" }, makeContext(tempDir()));
    const path = outcome.details?.full_output_path;
    const text = textOf(outcome);
    expect(outcome.details).toMatchObject({ lines_truncated: true, bytes_truncated: false });
    expect(text).toContain("\n2500\n... [truncated at 2000 lines: showing the last 2000 of 2500 lines]\n\n[exit 0] (full output: ");
    expect(text).toContain("\n501\n502\n");
    expect(text).not.toContain("\n500\n");
    expect(typeof path === "string" && readFileSync(path, "utf8").startsWith("1\n2\n")).toBe(true);
  });

  test("bad arguments name the field", async () => {
    const ctx = makeContext(tempDir());
    expect(textOf(await bash.execute({}, ctx))).toBe('bash: field "command": expected a string');
    expect(textOf(await bash.execute({ command: "  " }, ctx))).toBe('bash: field "command": must not be empty');
    expect(textOf(await bash.execute({ command: "true", timeout: "5" }, ctx))).toStartWith('bash: field "timeout":');
  });
});

describe("bash: timeout and abort kill the process group", () => {
  test("a timeout kills the shell and its background children", async () => {
    const ctx = makeContext(tempDir());
    const started = Date.now();
    const outcome = await bash.execute(
      { command: 'echo "pid:$$"; sleep 30 & echo "pid:$!"; sleep 31 & echo "pid:$!"; wait', timeout: 0.5 },
      ctx,
    );
    expect(Date.now() - started).toBeLessThan(5000);
    expect(outcome.isError).toBe(true);
    expect(outcome.status).toBe("timed_out");
    expect(textOf(outcome)).toMatch(/\n\.\.\. \[timed out after 0\.5s; process group killed\]\n\n\[exit -1\]  Took /);
    const pids = pidsIn(ctx.progress.join(""));
    expect(pids).toHaveLength(3);
    expect(await waitUntilGone(pids, 4000)).toEqual([]);
  });

  test("SIGKILL follows 3 s after SIGTERM for a child that ignores SIGTERM", async () => {
    const ctx = makeContext(tempDir());
    const outcome = await bash.execute(
      { command: `sh -c 'trap "" TERM; echo "pid:$$"; while :; do sleep 0.1; done' & wait`, timeout: 0.5 },
      ctx,
    );
    expect(outcome.status).toBe("timed_out");
    const pids = pidsIn(ctx.progress.join(""));
    expect(pids).toHaveLength(1);
    expect(await waitUntilGone(pids, 5000)).toEqual([]);
  }, 15_000);

  test("aborting via the AbortController cancels the command", async () => {
    const controller = new AbortController();
    const ctx = makeContext(tempDir(), { signal: controller.signal });
    const started = Date.now();
    const running = bash.execute({ command: 'echo "pid:$$"; sleep 30 & echo "pid:$!"; wait' }, ctx);
    while (pidsIn(ctx.progress.join("")).length < 2) await Bun.sleep(20);
    controller.abort();
    const outcome = await running;
    expect(Date.now() - started).toBeLessThan(5000);
    expect(outcome.isError).toBe(true);
    expect(outcome.status).toBe("cancelled");
    expect(textOf(outcome)).toMatch(/\n\.\.\. \[cancelled; process group killed\]\n\n\[exit -1\]  Took /);
    expect(await waitUntilGone(pidsIn(ctx.progress.join("")), 4000)).toEqual([]);
  });

  test("an already-aborted signal never starts the command", async () => {
    const dir = tempDir();
    const controller = new AbortController();
    controller.abort();
    const outcome = await bash.execute({ command: "touch marker" }, makeContext(dir, { signal: controller.signal }));
    expect(outcome.status).toBe("cancelled");
    expect(existsSync(`${dir}/marker`)).toBe(false);
  });

  test("a background process holding the pipe does not block the result", async () => {
    const ctx = makeContext(tempDir());
    const started = Date.now();
    const outcome = await bash.execute({ command: 'sleep 20 & echo "pid:$!"; echo done' }, ctx);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(outcome.isError).toBe(false);
    for (const pid of pidsIn(ctx.progress.join(""))) process.kill(pid, "SIGKILL");
  });

  test.if(process.platform === "linux")("Linux: one pipe is the shell's stdout and stderr, and zot keeps no end of it", async () => {
    const ctx = makeContext(tempDir());
    const pipeLinks = (): Set<string> => {
      const links = new Set<string>();
      for (const fd of readdirSync("/proc/self/fd")) {
        try {
          links.add(readlinkSync(`/proc/self/fd/${fd}`));
        } catch {
          // closed meanwhile
        }
      }
      return links;
    };
    // fd 1 and 2 of the shell are the same pipe; the read end (close-on-exec) is not among its fds.
    const outcome = await bash.execute({ command: "readlink /proc/$$/fd/1 /proc/$$/fd/2; ls /proc/$$/fd" }, ctx);
    const lines = textOf(outcome).split("\n");
    const [one, two] = [lines[2], lines[3]];
    expect(one).toMatch(/^pipe:\[\d+\]$/);
    expect(two).toBe(one);
    expect(lines.slice(4, lines.indexOf("", 4))).toEqual(["0", "1", "2"]);
    // Every call's pipe is closed on zot's side once the call is over (also with a background job still holding it).
    const used = [one!];
    for (let i = 0; i < 10; i++) {
      const call = await bash.execute({ command: "readlink /proc/$$/fd/2; echo err >&2" }, ctx);
      used.push(textOf(call).split("\n")[2]!);
    }
    const held = await bash.execute({ command: 'readlink /proc/$$/fd/1; sleep 20 & echo "pid:$!"' }, ctx);
    used.push(textOf(held).split("\n")[2]!);
    for (const pid of pidsIn(textOf(held))) process.kill(pid, "SIGKILL");
    expect(used.every((link) => /^pipe:\[\d+\]$/.test(link))).toBe(true);
    // Bun's stream closes its own duplicate of the read end asynchronously after a cancel: wait for that (bounded).
    const stillOpen = (): string[] => {
      const open = pipeLinks();
      return used.map((link, i) => `${i}:${link}`).filter((_, i) => open.has(used[i]!));
    };
    const deadline = Date.now() + 5000;
    while (stillOpen().length > 0 && Date.now() < deadline) await Bun.sleep(20);
    expect(stillOpen()).toEqual([]);
  });
});

test("formatDuration", () => {
  expect(formatDuration(0)).toBe("0.0s");
  expect(formatDuration(1234)).toBe("1.2s");
  expect(formatDuration(83_000)).toBe("1m23s");
  expect(formatDuration(3_725_000)).toBe("1h2m");
});
