/**
 * Slow-starting extensions through the compiled binary (issue 7 class 9).
 * behave.py / lifecycle.py with `hello-delay` stand in for `go run .` on a
 * cold build cache: they say hello seconds after spawning, longer than the
 * old 3 s bound. Print mode waits for them (saying so on stderr) and uses
 * their tool; they get session_start before anything else; a never-speaking
 * extension is reported once a (small) bound passes and zot finishes; doctor
 * finishes within the bound plus a second even with an extension that
 * ignores shutdown; RPC answers other commands at once and waits only
 * before a prompt; interactive mode takes and answers a prompt before the
 * slow extension is ready, and its tool joins when it is.
 */
import { expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { cleanEnv, runZot, zotBinary } from "../support/binary.ts";
import { lifecycleExtension, readRecord } from "../support/bridge-harness.ts";
import { BEHAVE, behaveExtension, isAlive, waitFor } from "../support/extensions.ts";
import { toolResultsSent, useModeEnv, type ModeEnv } from "./helpers.ts";

let env: ModeEnv;
useModeEnv((created) => (env = created));

test("print mode waits for an extension that says hello after 4 s, says so on stderr, and uses its tool", async () => {
  const record = join(env.base, "watcher.jsonl");
  const slow = behaveExtension(env.base, "slow", ["hello-delay=4"]);
  const watcher = lifecycleExtension(env.base, "watcher", ["hello-delay=4", "events=all", `record=${record}`]);
  env.server.enqueue(
    { type: "tool_calls", calls: [{ id: "c1", name: "py_echo", arguments: { text: "late but here" } }] },
    { type: "text", text: "used it" },
  );
  const result = await env.run(["-p", "use the slow tool", ...env.providerArgs(), "--ext", slow, "--ext", watcher], { timeoutMs: 30_000 });
  expect(result.code).toBe(0);
  expect(result.stdout).toBe("used it\n");
  expect(result.stderr).toContain(`zot: waiting for extension slow (${BEHAVE} slow hello-delay=4)…\n`);
  expect(result.stderr).toContain("zot: waiting for extension watcher (");
  expect(result.stderr).not.toContain("failed to load");
  expect(toolResultsSent(env.server.requests[1]).get("c1")).toBe('echo: {"text": "late but here"}');
  // The slow subscriber's first event is session_start, then the prompt.
  const events = readRecord(record).filter((frame) => frame.type === "event").map((frame) => frame.event);
  expect(events.slice(0, 2)).toEqual(["session_start", "user_prompt_submit"]);
}, 40_000);

test("an extension that never speaks is reported once the bound passes, and zot finishes without it", async () => {
  const pidFile = join(env.base, "mute.json");
  const mute = behaveExtension(env.base, "mute", ["never-hello", `pid-file=${pidFile}`]);
  env.server.enqueue({ type: "text", text: "answered anyway" });
  const result = await env.run(["-p", "hi", ...env.providerArgs(), "--ext", mute], { env: { ZOT_EXT_READY_TIMEOUT_MS: "1500" }, timeoutMs: 20_000 });
  expect(result.code).toBe(0);
  expect(result.stdout).toBe("answered anyway\n");
  expect(result.stderr).toContain("zot: waiting for extension mute (");
  expect(result.stderr).toContain('zot: warning: extension "mute" failed to load: sent no hello within 1500 ms');
  const { pid } = JSON.parse(readFileSync(pidFile, "utf8")) as { pid: number };
  expect(await waitFor(() => !isAlive(pid))).toBe(true);
}, 30_000);

test("Ctrl+C while print mode waits for a silent extension ends zot at once, extension included", async () => {
  const pidFile = join(env.base, "mute.json");
  const mute = behaveExtension(env.base, "mute", ["never-hello", `pid-file=${pidFile}`]);
  const proc = Bun.spawn([await zotBinary(), "-p", "hi", ...env.providerArgs(), "--ext", mute], {
    cwd: env.cwd,
    env: cleanEnv(env.home, { ZOT_EXT_READY_TIMEOUT_MS: "60000" }),
    stdout: "pipe",
    stderr: "pipe",
  });
  const killer = setTimeout(() => proc.kill("SIGKILL"), 30_000);
  let stderr = "";
  const reading = (async () => {
    for await (const chunk of proc.stderr) stderr += new TextDecoder().decode(chunk);
  })();
  try {
    expect(await waitFor(() => stderr.includes("zot: waiting for extension mute ("), 20_000)).toBe(true);
    proc.kill("SIGINT");
    expect(await proc.exited).toBe(130);
    await reading;
    expect(stderr).toContain("zot: interrupted");
    expect(stderr).not.toContain("failed to load");
    expect(env.server.requests).toHaveLength(0);
    const { pid } = JSON.parse(readFileSync(pidFile, "utf8")) as { pid: number };
    expect(await waitFor(() => !isAlive(pid))).toBe(true);
  } finally {
    clearTimeout(killer);
    if (proc.exitCode === null) proc.kill("SIGKILL");
    await proc.exited;
  }
}, 40_000);

test("config.json ext_ready_timeout_ms sets the bound (the env var wins over it)", async () => {
  await Bun.write(join(env.home, "config.json"), JSON.stringify({ ext_ready_timeout_ms: 1200 }));
  const mute = behaveExtension(env.base, "mute", ["never-hello"]);
  env.server.enqueue({ type: "text", text: "ok" }, { type: "text", text: "ok" });
  const configured = await env.run(["-p", "hi", ...env.providerArgs(), "--ext", mute], { timeoutMs: 20_000 });
  expect(configured.stderr).toContain("sent no hello within 1200 ms");
  const overridden = await env.run(["-p", "hi", ...env.providerArgs(), "--ext", mute], { env: { ZOT_EXT_READY_TIMEOUT_MS: "800" }, timeoutMs: 20_000 });
  expect(overridden.stderr).toContain("sent no hello within 800 ms");
}, 30_000);

test("doctor finishes within the bound plus a second, even with a silent extension and one that ignores shutdown", async () => {
  const root = join(env.home, "extensions");
  behaveExtension(root, "mute", ["never-hello"]);
  behaveExtension(root, "stubborn", ["ignore-shutdown"]);
  behaveExtension(root, "slowpoke", ["hello-delay=1"]);
  const boundMs = 2_000;
  const started = Date.now();
  const result = await runZot(["ext", "doctor"], { home: env.home, env: { ZOT_EXT_READY_TIMEOUT_MS: String(boundMs) }, timeoutMs: 20_000 });
  const elapsed = Date.now() - started;
  expect(result.code).toBe(1);
  expect(result.stdout).toContain(`(bound ${boundMs} ms)`);
  expect(result.stdout).toContain(`extension "mute" failed to load: sent no hello within ${boundMs} ms`);
  expect(result.stdout).toMatch(/✓ slowpoke .* — ready\n[^\n]*\n {6}startup: \d+ ms/);
  // Bound + 1 s, plus a generous allowance for spawning zot and Python on a busy machine.
  expect(elapsed).toBeLessThan(boundMs + 1_000 + 1_500);
}, 30_000);

interface Rpc {
  readonly lines: Record<string, unknown>[];
  send(command: Record<string, unknown>): void;
  waitFor(match: (line: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
  finish(): Promise<{ code: number | null; stderr: string }>;
}

async function startRpc(args: readonly string[]): Promise<Rpc> {
  const proc = Bun.spawn([await zotBinary(), "rpc", ...env.providerArgs(), ...args], {
    cwd: env.cwd,
    env: cleanEnv(env.home),
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  const killer = setTimeout(() => proc.kill("SIGKILL"), 30_000);
  const lines: Record<string, unknown>[] = [];
  const reading = (async () => {
    let pending = "";
    for await (const chunk of proc.stdout) {
      pending += new TextDecoder().decode(chunk);
      for (let at = pending.indexOf("\n"); at !== -1; at = pending.indexOf("\n")) {
        lines.push(JSON.parse(pending.slice(0, at)) as Record<string, unknown>);
        pending = pending.slice(at + 1);
      }
    }
  })();
  const stderr = new Response(proc.stderr).text();
  return {
    lines,
    send: (command) => void proc.stdin.write(`${JSON.stringify(command)}\n`),
    waitFor: async (match) => {
      expect(await waitFor(() => lines.some(match), 20_000)).toBe(true);
      return lines.find(match)!;
    },
    finish: async () => {
      void proc.stdin.end();
      const code = await proc.exited;
      clearTimeout(killer);
      await reading;
      return { code, stderr: await stderr };
    },
  };
}

test("rpc answers other commands while an extension starts, and waits only before a prompt", async () => {
  const readyFile = join(env.base, "ready");
  const slow = behaveExtension(env.base, "slow", ["hello-delay=3", `ready-file=${readyFile}`]);
  env.server.enqueue(
    { type: "tool_calls", calls: [{ id: "c1", name: "py_echo", arguments: { text: "rpc" } }] },
    { type: "text", text: "rpc done" },
  );
  const rpc = await startRpc(["--ext", slow]);
  rpc.send({ type: "ping", id: "p" });
  await rpc.waitFor((line) => line.id === "p");
  expect(existsSync(readyFile)).toBe(false);
  rpc.send({ type: "prompt", id: "q", message: "use the tool" });
  await rpc.waitFor((line) => line.type === "done");
  expect(existsSync(readyFile)).toBe(true);
  expect(toolResultsSent(env.server.requests[1]).get("c1")).toBe('echo: {"text": "rpc"}');
  const { code, stderr } = await rpc.finish();
  expect(code).toBe(0);
  expect(stderr).toContain("zot: waiting for extension slow (");
}, 40_000);

test("interactive mode answers a prompt before a slow extension is ready; its tool joins once it is", async () => {
  const readyFile = join(env.base, "ready");
  const slow = behaveExtension(env.base, "slow", ["hello-delay=6", `ready-file=${readyFile}`]);
  env.server.enqueue(
    { type: "text", text: "first answer" },
    { type: "tool_calls", calls: [{ id: "c2", name: "py_echo", arguments: { text: "joined" } }] },
    { type: "text", text: "second answer" },
  );
  let output = "";
  const terminal = new Bun.Terminal({ cols: 100, rows: 30, data: (_t, bytes) => void (output += new TextDecoder().decode(bytes)) });
  const proc = Bun.spawn([await zotBinary(), "--ext", slow, ...env.providerArgs()], {
    cwd: env.cwd,
    env: cleanEnv(env.home, { TERM: "xterm-256color" }),
    terminal,
  });
  const shown = (text: string): boolean => Bun.stripANSI(output).includes(text);
  try {
    // The editor is up (bracketed paste on) and answers while the extension has not said hello.
    expect(await waitFor(() => output.includes("\x1b[?2004h"), 10_000)).toBe(true);
    terminal.write("hello there\r");
    expect(await waitFor(() => shown("first answer"), 10_000)).toBe(true);
    expect(existsSync(readyFile)).toBe(false);
    // Once ready, its tool is there without any reload.
    expect(await waitFor(() => existsSync(readyFile), 20_000)).toBe(true);
    terminal.write("now use it\r");
    expect(await waitFor(() => shown("second answer"), 10_000)).toBe(true);
    expect(toolResultsSent(env.server.requests[2]).get("c2")).toBe('echo: {"text": "joined"}');
    terminal.write("/exit\r");
    expect(await Promise.race([proc.exited, Bun.sleep(10_000).then(() => "timeout")])).toBe(0);
  } finally {
    if (proc.exitCode === null) proc.kill("SIGKILL");
    await proc.exited;
    terminal.close();
  }
}, 60_000);
