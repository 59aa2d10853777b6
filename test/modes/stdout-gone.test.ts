/**
 * A reader that closes zot's stdout while the run goes on (`zot --json … |
 * head -1`, an RPC client that stops reading), through dist/zot: the run
 * stops as the original zot's did when SIGPIPE killed it at its next write —
 * exit 141, quietly, and the tool the model asked for next never runs. The
 * reader is a FIFO the test reads and then closes (Linux: /proc and mkfifo).
 * Every process a test starts is killed in afterEach.
 */
import { afterAll, afterEach, beforeEach, describe, expect, test } from "bun:test";
import { closeSync, constants, existsSync, openSync } from "node:fs";
import { join } from "node:path";
import { cleanEnv, removeTempDirs, zotBinary } from "../support/binary.ts";
import { readUntil } from "../support/fifo.ts";
import { exitWithin } from "../support/processes.ts";
import { createModeEnv, type ModeEnv } from "./helpers.ts";

afterAll(removeTempDirs);

let env: ModeEnv;
let zot = "";
let spawned: Bun.Subprocess[];
let openFds: number[];

beforeEach(async () => {
  env = createModeEnv();
  zot = await zotBinary();
  spawned = [];
  openFds = [];
});
afterEach(async () => {
  for (const proc of spawned) {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
    await proc.exited;
  }
  for (const fd of openFds) closeSync(fd);
  await env.dispose();
});

/** A FIFO with the test as its only reader: `writeEnd` is zot's stdout, `closeReader()` makes zot's next write fail with EPIPE. */
function closableStdout(): { readonly writeEnd: number; firstLine(): Promise<string>; closeReader(): void } {
  const path = join(env.base, "stdout.fifo");
  expect(Bun.spawnSync(["mkfifo", path]).success).toBe(true);
  const readEnd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  const writeEnd = openSync(path, constants.O_WRONLY);
  let readerOpen = true;
  openFds.push(readEnd);
  return {
    writeEnd,
    firstLine: () => readUntil(readEnd, "\n"),
    closeReader: () => {
      if (!readerOpen) return;
      readerOpen = false;
      openFds.splice(openFds.indexOf(readEnd), 1);
      closeSync(readEnd);
    },
  };
}

/** The model asks for `touch <marker>` once `release` settles; then it would answer. */
function scriptToolAfter(release: Promise<unknown>, marker: string): void {
  env.server.enqueue(
    { type: "tool_calls", calls: [{ id: "toolu_1", name: "bash", arguments: { command: `touch ${marker}` } }], holdUntil: release },
    { type: "text", text: "done" },
  );
}

function spawnZot(args: readonly string[], stdout: number, stdin: "ignore" | "pipe" = "ignore"): Bun.Subprocess<"ignore" | "pipe", number, "pipe"> {
  const proc = Bun.spawn([zot, ...args, ...env.providerArgs()], { cwd: env.cwd, env: cleanEnv(env.home), stdin, stdout, stderr: "pipe" });
  spawned.push(proc);
  return proc;
}

describe.if(process.platform === "linux")("stdout closed by its reader", () => {
  test("--json: the run stops at the next event (exit 141, nothing on stderr); the tool asked for after that never runs", async () => {
    const stdout = closableStdout();
    const release = Promise.withResolvers<void>();
    const marker = join(env.cwd, "ran");
    scriptToolAfter(release.promise, marker);
    const proc = spawnZot(["--json", "go"], stdout.writeEnd);
    closeSync(stdout.writeEnd);
    expect(JSON.parse((await stdout.firstLine()).split("\n")[0] ?? "")).toMatchObject({ type: "user_message" });
    stdout.closeReader();
    release.resolve();
    expect(await exitWithin(proc, 20_000)).toBe(141);
    expect(await new Response(proc.stderr).text()).toBe("");
    expect(existsSync(marker)).toBe(false);
    expect(env.server.requests).toHaveLength(1);
  }, 30_000);

  test("rpc: a client that stops reading ends zot (141) while its stdin stays open; the tool never runs", async () => {
    const stdout = closableStdout();
    const release = Promise.withResolvers<void>();
    const marker = join(env.cwd, "ran");
    scriptToolAfter(release.promise, marker);
    const proc = spawnZot(["rpc"], stdout.writeEnd, "pipe");
    closeSync(stdout.writeEnd);
    const stdin = proc.stdin as import("bun").FileSink;
    stdin.write(`${JSON.stringify({ id: "1", type: "prompt", message: "go" })}\n`);
    stdin.flush();
    expect(JSON.parse((await stdout.firstLine()).split("\n")[0] ?? "")).toMatchObject({ type: "response", command: "prompt", success: true });
    stdout.closeReader();
    release.resolve();
    expect(await exitWithin(proc, 20_000)).toBe(141);
    expect(existsSync(marker)).toBe(false);
    await stdin.end();
  }, 30_000);
});
