/**
 * Issue 7 class 3 through dist/zot: private files (session files 0600 in
 * 0700 directories, $ZOT_HOME 0700, existing ones tightened, auth.json
 * tightened when read) and one writer per session file (a second zot on a
 * live session is refused with the `zot --fork` remedy, which works; the
 * lock goes with the process, kill -9 included).
 */
import { expect, test } from "bun:test";
import { chmodSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { loadSession } from "../../src/session/index.ts";
import { cleanEnv, zotBinary } from "../support/binary.ts";
import { waitFor } from "../support/extensions.ts";
import { requestTexts, useModeEnv, type ModeEnv } from "./helpers.ts";

let env: ModeEnv;
useModeEnv((created) => (env = created));

function mode(path: string): number {
  return statSync(path).mode & 0o777;
}

function onlySession(): string {
  const files = env.sessionFiles();
  expect(files).toHaveLength(1);
  return files[0] as string;
}

test("session files are 0600 in 0700 directories, and $ZOT_HOME is 0700", async () => {
  chmodSync(env.home, 0o755);
  env.server.enqueue({ type: "text", text: "private answer" });
  const result = await env.run(["-p", "a private question", ...env.providerArgs()]);
  expect(result.code).toBe(0);
  const file = onlySession();
  expect(mode(file)).toBe(0o600);
  expect(mode(dirname(file))).toBe(0o700);
  expect(mode(join(env.home, "sessions"))).toBe(0o700);
  expect(mode(env.home)).toBe(0o700);
});

test("an existing world-readable session and its directories are tightened when zot opens them", async () => {
  env.server.enqueue({ type: "text", text: "one" }, { type: "text", text: "two" });
  expect((await env.run(["-p", "first", ...env.providerArgs()])).code).toBe(0);
  const file = onlySession();
  for (const path of [env.home, join(env.home, "sessions"), dirname(file)]) chmodSync(path, 0o755);
  chmodSync(file, 0o644);
  const result = await env.run(["-p", "-c", "second", ...env.providerArgs()]);
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  expect(mode(file)).toBe(0o600);
  for (const path of [env.home, join(env.home, "sessions"), dirname(file)]) expect(mode(path)).toBe(0o700);
});

test("a world-readable auth.json is tightened to 0600 when zot reads the key from it", async () => {
  const auth = join(env.home, "auth.json");
  writeFileSync(auth, JSON.stringify({ anthropic: { api_key: "key-from-auth-json" } }));
  chmodSync(auth, 0o644);
  env.server.enqueue({ type: "text", text: "authenticated" });
  const result = await env.run(["-p", "hi", "--no-session", "--provider", "anthropic", "--base-url", env.server.anthropicBaseUrl]);
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  expect(env.server.requests[0]?.headers["x-api-key"]).toBe("key-from-auth-json");
  expect(mode(auth)).toBe(0o600);
});

/** A zot -c whose model stream stalls: it holds the session until killed. */
async function startHolder(): Promise<Bun.Subprocess<"ignore", "pipe", "pipe">> {
  const proc = Bun.spawn([await zotBinary(), "-p", "-c", "held question", ...env.providerArgs()], {
    cwd: env.cwd,
    env: cleanEnv(env.home, { ZOT_STREAM_IDLE_TIMEOUT_MS: "60000" }),
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const requestsBefore = env.server.requests.length;
  // Its model request means its session is open (and locked).
  expect(await waitFor(() => env.server.requests.length > requestsBefore, 15_000)).toBe(true);
  return proc;
}

test("a second zot -c on a live session is refused with a working --fork remedy; the first keeps its file to itself", async () => {
  env.server.enqueue({ type: "text", text: "first answer" }, { type: "stall", text: "partial" }, { type: "text", text: "forked answer" });
  expect((await env.run(["-p", "first question", ...env.providerArgs()])).code).toBe(0);
  const file = onlySession();
  const holder = await startHolder();
  try {
    const second = await env.run(["-p", "-c", "second writer", ...env.providerArgs()]);
    expect(second.code).toBe(1);
    expect(second.stderr).toBe(
      `zot: ${file}: in use by another zot (pid ${holder.pid}); to continue from it in a new session, run: zot --fork ${file}\n`,
    );
    expect(env.server.requests).toHaveLength(2);

    const forked = await env.run(["-p", "--fork", file, "forked question", ...env.providerArgs()]);
    expect(forked.code).toBe(0);
    expect(forked.stdout).toBe("forked answer\n");
    const copy = env.sessionFiles().find((path) => path !== file);
    expect(copy).toBeDefined();
    expect(forked.stderr).toBe(`zot: forked ${file} into ${copy}\n`);
    const texts = requestTexts(env.server.requests[2]);
    expect(texts).toContain("first question");
    expect(texts).toContain("first answer");
    const fork = loadSession(copy as string);
    expect(fork.meta.parent).toBe(loadSession(file).meta.id);
    expect(fork.meta.fork_point).toBe(3);
  } finally {
    holder.kill("SIGTERM");
    await holder.exited;
  }
  const content = readFileSync(file, "utf8");
  expect(content).not.toContain("second writer");
  expect(content).not.toContain("forked question");
  // The holder's own conversation only: its question, then (stopped by SIGTERM) its partial answer.
  const texts = loadSession(file).messages.map((m) => m.content.map((block) => (block.type === "text" ? block.text : "")).join(""));
  expect(texts).toEqual(["first question", "first answer", "held question", "partial"]);
});

test("kill -9 of the writer releases the lock: the next zot -c continues the session", async () => {
  env.server.enqueue({ type: "text", text: "first answer" }, { type: "stall", text: "partial" }, { type: "text", text: "after the crash" });
  expect((await env.run(["-p", "first question", ...env.providerArgs()])).code).toBe(0);
  const holder = await startHolder();
  holder.kill("SIGKILL");
  await holder.exited;
  const next = await env.run(["-p", "-c", "continue after crash", ...env.providerArgs()]);
  expect(next.stderr).toBe("");
  expect(next.code).toBe(0);
  expect(next.stdout).toBe("after the crash\n");
  expect(requestTexts(env.server.requests[2])).toContain("held question");
});

test("a new session being written (no index yet) is refused naming its writer's pid, from the kernel's lock table", async () => {
  env.server.enqueue({ type: "stall", text: "partial" });
  const proc = Bun.spawn([await zotBinary(), "-p", "a new session", ...env.providerArgs()], {
    cwd: env.cwd,
    env: cleanEnv(env.home, { ZOT_STREAM_IDLE_TIMEOUT_MS: "60000" }),
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  try {
    expect(await waitFor(() => env.server.requests.length > 0, 15_000)).toBe(true);
    const file = onlySession();
    // The writer of a new session writes its index only when it closes (or has grown by 256 KiB).
    expect(env.sessionFiles()).toEqual([file]);
    const second = await env.run(["-p", "--session", file, "second writer", ...env.providerArgs()]);
    expect(second.code).toBe(1);
    expect(second.stderr).toBe(
      `zot: ${file}: in use by another zot (pid ${proc.pid}); to continue from it in a new session, run: zot --fork ${file}\n`,
    );
  } finally {
    proc.kill("SIGTERM");
    await proc.exited;
  }
});
