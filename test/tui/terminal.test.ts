/**
 * processTerminal() in a real PTY (Bun.Terminal): a child runs it under
 * `sh`, which prints `stty -a` after the child ends, so each exit path is
 * checked for cooked mode, paste off, cursor shown and kitty flags popped.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";

const CHILD = join(import.meta.dir, "fixtures", "terminal-child.ts");
const WAIT_MS = 15_000;

interface Run {
  readonly terminal: Bun.Terminal;
  readonly proc: Bun.Subprocess;
  output(): string;
  waitFor(predicate: (output: string) => boolean, what: string): Promise<void>;
}

let runs: Run[] = [];
afterEach(async () => {
  for (const run of runs) {
    run.proc.kill("SIGKILL");
    await run.proc.exited;
    run.terminal.close();
  }
  runs = [];
});

function start(mode: string): Run {
  let output = "";
  const decoder = new TextDecoder();
  const terminal = new Bun.Terminal({ cols: 80, rows: 24, data: (_t, bytes) => void (output += decoder.decode(bytes, { stream: true })) });
  const script = `'${process.execPath}' '${CHILD}' ${mode}; echo "STATUS $?"; stty -a; echo DONE`;
  const proc = Bun.spawn(["sh", "-c", script], { terminal, env: { PATH: process.env.PATH ?? "/usr/bin:/bin", TERM: "xterm-256color" } });
  const run: Run = {
    terminal,
    proc,
    output: () => output,
    async waitFor(predicate, what) {
      const deadline = Date.now() + WAIT_MS;
      while (!predicate(output)) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; output so far: ${JSON.stringify(output)}`);
        await Bun.sleep(10);
      }
    },
  };
  runs.push(run);
  return run;
}

/** The part of the output after the child started its terminal. */
async function ready(run: Run, answerKitty: boolean): Promise<void> {
  await run.waitFor((o) => o.includes("\x1b[?u\x1b[c"), "the kitty + DA1 queries");
  run.terminal.write(answerKitty ? "\x1b[?0u\x1b[?62;22c" : "\x1b[?62;22c");
  await run.waitFor((o) => o.includes("READY"), "READY");
}

function expectRestored(output: string, kitty: boolean): void {
  const tail = output.slice(output.lastIndexOf("READY"));
  expect(tail).toContain("\x1b[?2004l");
  expect(tail).toContain("\x1b[?25h");
  if (kitty) expect(tail).toContain("\x1b[<u");
  else expect(tail).not.toContain("\x1b[<u");
  const stty = output.slice(output.lastIndexOf("STATUS"));
  expect(stty).toMatch(/(^|\s)icanon(\s|$)/);
  expect(stty).toMatch(/(^|\s)echo(\s|$)/);
}

describe("processTerminal", () => {
  test("raw mode, bracketed paste, kitty pushed when answered; keys decoded; restore() is idempotent", async () => {
    const run = start("restore");
    await ready(run, true);
    await run.waitFor((o) => o.includes("\x1b[>1u"), "the kitty push");
    expect(run.output()).toContain("\x1b[?2004h");
    // Raw mode: Ctrl+C is a key, not a signal; kitty CSI u decoded.
    run.terminal.write("\x03\x1b[99;5u\x1b[13;2u");
    await run.waitFor((o) => (o.match(/"name":"c","ctrl":true/g) ?? []).length === 2 && o.includes('"name":"enter","ctrl":false,"alt":false,"shift":true'), "the keys");
    expect(run.output()).toContain("kitty=true");
    run.terminal.write("x");
    await run.waitFor((o) => o.includes("DONE"), "the end");
    expectRestored(run.output(), true);
    expect(run.output()).toContain("STATUS 0");
    // Restored once: the pop is written once.
    expect(run.output().split("\x1b[<u").length - 1).toBe(1);
  });

  test("without a kitty answer: no push, and a lone ESC becomes Escape after the timeout", async () => {
    const run = start("restore");
    await ready(run, false);
    run.terminal.write("\x1b");
    await run.waitFor((o) => o.includes('"name":"escape"'), "Escape");
    run.terminal.write("\x1b[200~pasted\r\nlines\x1b[201~");
    await run.waitFor((o) => o.includes('"kind":"paste","text":"pasted\\nlines"'), "the paste");
    expect(run.output()).toContain("kitty=false");
    run.terminal.write("x");
    await run.waitFor((o) => o.includes("DONE"), "the end");
    expect(run.output()).not.toContain("\x1b[>1u");
    expectRestored(run.output(), false);
  });

  test("a resize is reported once per new size", async () => {
    const run = start("restore");
    await ready(run, false);
    // Bun.Terminal.resize sets the size without signalling; the kernel's SIGWINCH is sent by hand.
    const pid = Number(/READY pid=(\d+)/.exec(run.output())?.[1]);
    run.terminal.resize(50, 20);
    process.kill(pid, "SIGWINCH");
    await run.waitFor((o) => o.includes("RESIZE 50x20"), "the resize");
    run.terminal.write("x");
    await run.waitFor((o) => o.includes("DONE"), "the end");
    expect(run.output().split("RESIZE 50x20").length - 1).toBe(1);
  });

  test("a resize back to the size reported last is reported too (the terminal was at another size in between)", async () => {
    const run = start("restore");
    await ready(run, false);
    const pid = Number(/READY pid=(\d+)/.exec(run.output())?.[1]);
    run.terminal.resize(50, 20);
    process.kill(pid, "SIGWINCH");
    await run.waitFor((o) => o.includes("RESIZE 50x20"), "the resize");
    // 50 → 30 → 50 columns before the child hears of it: one SIGWINCH, the size it finds is the one reported last.
    run.terminal.resize(30, 20);
    run.terminal.resize(50, 20);
    process.kill(pid, "SIGWINCH");
    await run.waitFor((o) => o.split("RESIZE 50x20").length - 1 === 2, "the second resize");
    run.terminal.write("x");
    await run.waitFor((o) => o.includes("DONE"), "the end");
  });

  for (const [mode, status] of [["exit", 3], ["throw", 1], ["signal", 143], ["reject", 1]] as const) {
    test(`the terminal is restored when the process leaves by ${mode}`, async () => {
      const run = start(mode);
      await ready(run, true);
      await run.waitFor((o) => o.includes("\x1b[>1u"), "the kitty push");
      run.terminal.write("x");
      await run.waitFor((o) => o.includes("DONE"), "the end");
      expectRestored(run.output(), true);
      expect(run.output()).toContain(`STATUS ${status}`);
    });
  }
});
