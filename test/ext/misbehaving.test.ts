import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ExtensionLoadError } from "../../src/ext/errors.ts";
import { callExtensionTool } from "../../src/ext/tool-adapter.ts";
import { tempDir } from "../support/binary.ts";
import { behaveExtension, hostsShutDownAfterEach, isAlive, logText, waitFor, waitForLog } from "../support/extensions.ts";
import { removeTempDirs } from "../support/temp.ts";

afterAll(removeTempDirs);

const host = hostsShutDownAfterEach();

function pidsOf(file: string): { pid: number; child: number | null } {
  return JSON.parse(readFileSync(file, "utf8"));
}

describe("misbehaving extensions", () => {
  test("exits before hello: the exit status is reported with directory, exec, language and log", async () => {
    const dir = behaveExtension(tempDir(), "quitter", ["exit-before-hello=3"]);
    const { manager } = host([dir]);
    await manager.start();
    const error = manager.loadErrors[0]!;
    expect(error).toBeInstanceOf(ExtensionLoadError);
    expect(error.failure).toEqual({ kind: "exited_before_hello", exitCode: 3, signal: null, stderr: "failing before hello" });
    expect(error.message.split("\n")).toEqual([
      'extension "quitter" failed to load: exited before hello (exit status 3); its last stderr line: failing before hello',
      `  directory: ${dir}`,
      expect.stringContaining("behave.py (language: python)"),
      expect.stringMatching(/  log: .*ext-quitter\.log$/),
    ]);
  });

  test("exits before hello after writing why on stderr: the error ends with that last line (a missing module)", async () => {
    const dir = join(tempDir(), "nomodule");
    mkdirSync(dir);
    writeFileSync(join(dir, "extension.json"), JSON.stringify({ name: "nomodule", exec: "/bin/sh", args: ["run.sh"] }));
    writeFileSync(join(dir, "run.sh"), "echo 'loading…' >&2\necho \"error: Cannot find module '@zot/extension-sdk'\" >&2\nexit 1\n");
    const { manager } = host([dir]);
    await manager.start();
    const error = manager.loadErrors[0]!;
    expect(error.message.split("\n")[0]).toBe(
      `extension "nomodule" failed to load: exited before hello (exit status 1); its last stderr line: error: Cannot find module '@zot/extension-sdk'`,
    );
  });

  test("killed by a signal before hello: the signal is reported", async () => {
    const { manager } = host([behaveExtension(tempDir(), "sig", ["signal-before-hello"])]);
    await manager.start();
    expect(manager.loadErrors[0]!.failure).toEqual({ kind: "exited_before_hello", exitCode: null, signal: "SIGTERM" });
  });

  test("never says hello: startup finishes at the deadline and the process is gone", async () => {
    const root = tempDir();
    const pidFile = join(root, "pid.json");
    const fine = behaveExtension(root, "fine");
    const { manager } = host([behaveExtension(root, "mute", ["never-hello", `pid-file=${pidFile}`]), fine], { readyTimeoutMs: 800 });
    const started = Date.now();
    await manager.start();
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(manager.loadErrors.map((e) => e.failure.kind)).toEqual(["hello_timeout"]);
    expect(manager.connection("fine")?.readyState).toBe("ready");
    expect(await waitFor(() => !isAlive(pidsOf(pidFile).pid))).toBe(true);
  });

  test("wrong name in hello: refused and killed", async () => {
    const root = tempDir();
    const pidFile = join(root, "pid.json");
    const { manager } = host([behaveExtension(root, "honest", ["hello-name=liar", `pid-file=${pidFile}`])]);
    await manager.start();
    expect(manager.loadErrors[0]!.failure).toEqual({ kind: "name_mismatch", helloName: "liar" });
    expect(manager.loadErrors[0]!.message).toContain('hello names "liar" but extension.json names "honest"');
    expect(await waitFor(() => !isAlive(pidsOf(pidFile).pid))).toBe(true);
  });

  test("non-JSON and invalid frames are logged and dropped; the extension keeps working", async () => {
    const { manager } = host([behaveExtension(tempDir(), "noisy", ["junk"])]);
    await manager.start();
    expect(manager.connection("noisy")?.readyState).toBe("ready");
    expect((await manager.invokeCommand("greet", "x")).response.display).toBe("hello x from noisy");
    const log = await logText(manager.connection("noisy")!.log.path);
    expect(log).toContain("malformed JSON frame dropped");
    expect(log).toContain("frame dropped: not a JSON object");
    expect(log).toContain('unknown frame type "no_such_frame" dropped');
    expect(log).toContain('invalid register_tool frame dropped: field "name"');
  });

  test("a 5 MiB line disconnects that extension with a diagnostic", async () => {
    const root = tempDir();
    const pidFile = join(root, "pid.json");
    const { manager, ui } = host([behaveExtension(root, "huge", ["huge-line", `pid-file=${pidFile}`]), behaveExtension(root, "calm")]);
    await manager.start();
    expect(await waitFor(() => ui.notes.some((n) => n.level === "failed"))).toBe(true);
    expect(ui.notes.find((n) => n.level === "failed")).toMatchObject({ extension: "huge", message: expect.stringContaining("frame limit") });
    expect(manager.registry.command("greet")?.extension).toBe("calm");
    expect(await logText(manager.connection("huge")!.log.path)).toContain("frame exceeds 4194304 bytes");
    expect(await waitFor(() => !isAlive(pidsOf(pidFile).pid))).toBe(true);
  });

  test("an extension that never reads its stdin is disconnected by queue overflow", async () => {
    const { manager, ui } = host([behaveExtension(tempDir(), "deaf", ["never-read"])]);
    await manager.start();
    const connection = manager.connection("deaf")!;
    const pad = "p".repeat(32 * 1024);
    let refused = false;
    for (let i = 0; i < 5_000 && !refused; i++) refused = !connection.send({ type: "event", event: "turn_start", step: i, pad });
    expect(refused).toBe(true);
    expect(connection.closed).toBe(true);
    expect(ui.notes.find((n) => n.level === "failed")?.message).toContain("outbound queue overflow");
    expect(manager.registry.tools().length).toBe(0);
  });

  test("ignores shutdown and SIGTERM: SIGKILLed, the pid is gone", async () => {
    const root = tempDir();
    const pidFile = join(root, "pid.json");
    const { manager, home } = host([behaveExtension(root, "stubborn", ["ignore-shutdown", `pid-file=${pidFile}`])], { shutdownGraceMs: 300 });
    await manager.start();
    const { pid } = pidsOf(pidFile);
    const started = Date.now();
    await manager.shutdown();
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_200);
    expect(isAlive(pid)).toBe(false);
    expect(await logText(join(home, "logs", "ext-stubborn.log"))).toContain("did not exit after SIGTERM; sending SIGKILL");
  });

  test("an extension that registers and exits during startup leaves no registrations behind", async () => {
    const { manager, ui } = host([behaveExtension(tempDir(), "fleeting", ["exit-after-register"]), behaveExtension(tempDir(), "steady", ["command=steady"])]);
    await manager.start();
    expect(manager.registry.commands().map((c) => c.name)).toEqual(["steady"]);
    expect(manager.registry.tools().map((t) => t.extension)).toEqual(["steady"]);
    expect(ui.notes.find((n) => n.level === "failed")).toMatchObject({ extension: "fleeting", message: expect.stringContaining("exited (status 5)") });
  });

  test("crash in the middle of a tool call fails the pending call at once", async () => {
    const { manager, ui } = host([behaveExtension(tempDir(), "crashy", ["crash-on-tool"])]);
    await manager.start();
    const tool = manager.tools().find((t) => t.name === "py_echo")!;
    const started = Date.now();
    const outcome = await tool.execute({ text: "x" }, { cwd: "/", signal: new AbortController().signal, onProgress: () => {} });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(outcome).toMatchObject({ isError: true, status: "failed", extension: "crashy" });
    expect(outcome.content[0]).toMatchObject({ text: expect.stringContaining("extension disconnected: exited (status 7)") });
    expect(manager.registry.tools()).toEqual([]);
    expect(manager.registry.commands()).toEqual([]);
    expect(ui.notes.some((n) => n.level === "failed" && n.extension === "crashy")).toBe(true);
  });

  test("unknown result ids are ignored; a late result after timeout is ignored and tool_cancel is sent", async () => {
    const root = tempDir();
    const cancelLog = join(root, "cancels.txt");
    const { manager } = host([
      behaveExtension(root, "stray", ["unknown-results"]),
      behaveExtension(root, "late", ["slow-tool=1", `cancel-log=${cancelLog}`, "command=late"]),
    ]);
    await manager.start();
    const stray = manager.tools().find((t) => t.extension === "stray" && t.name === "py_echo")!;
    const outcome = await stray.execute({ text: "ok" }, { cwd: "/", signal: new AbortController().signal, onProgress: () => {} });
    expect(outcome.content).toEqual([{ type: "text", text: 'echo: {"text": "ok"}' }]);
    expect(await logText(manager.connection("stray")!.log.path)).toContain('tool_result for unknown or expired id "no-such-id" ignored');

    const lateConnection = manager.connection("late")!;
    const registered = { name: "py_echo", description: "", schema: {}, deferred: false, interactive: false, extension: "late" };
    const timedOut = await callExtensionTool(lateConnection, registered, { text: "slow" }, { timeoutMs: 200 });
    expect(timedOut).toMatchObject({ isError: true, status: "timed_out" });
    expect(await waitFor(() => {
      try {
        return readFileSync(cancelLog, "utf8").trim().startsWith("tool-");
      } catch {
        return false;
      }
    })).toBe(true);
    expect(await waitForLog(lateConnection.log.path, "unknown or expired id")).toContain("unknown or expired id");
    expect(lateConnection.closed).toBe(false);
  });

  test("tool_cancel is only sent to extensions that advertised it", async () => {
    const root = tempDir();
    const cancelLog = join(root, "cancels.txt");
    const { manager } = host([behaveExtension(root, "plain", ["no-cancel-cap", "slow-tool=0.6", `cancel-log=${cancelLog}`])]);
    await manager.start();
    const registered = { name: "py_echo", description: "", schema: {}, deferred: false, interactive: false, extension: "plain" };
    const timedOut = await callExtensionTool(manager.connection("plain"), registered, { text: "slow" }, { timeoutMs: 100 });
    expect(timedOut).toMatchObject({ isError: true, status: "timed_out" });
    // Wait until the late result arrived (logged as expired), then check no cancel was delivered.
    expect(await waitForLog(manager.connection("plain")!.log.path, "unknown or expired id")).toContain("unknown or expired id");
    expect(existsSync(cancelLog)).toBe(false);
  });
});
