import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { dispatchCommandResponse, type CommandActionHandler } from "../../src/ext/host.ts";
import type { ExtensionManager } from "../../src/ext/manager.ts";
import { tempDir } from "../support/binary.ts";
import {
  behaveExtension, copyExample, copyFixture, quickExtension, hostsShutDownAfterEach, isAlive, logText, waitFor, waitForLog,
} from "../support/extensions.ts";
import { removeTempDirs } from "../support/temp.ts";

afterAll(removeTempDirs);

const hasJq = Bun.which("jq") !== null;
const host = hostsShutDownAfterEach();

function toolByName(manager: ExtensionManager, name: string) {
  const tool = manager.tools().find((t) => t.name === name);
  if (!tool) throw new Error(`tool ${name} not registered`);
  return tool;
}

const ctx = (signal = new AbortController().signal) => ({ cwd: "/", signal, onProgress: () => {} });

describe("extension manager with real extensions", () => {
  test("python and typescript extensions register and answer", async () => {
    const root = tempDir();
    const dirs = [copyFixture(root, "py-hello"), copyExample(root, "notes-ts")];
    const { manager, ui, cwd } = host(dirs);
    await manager.start();
    expect(manager.loadErrors.map((e) => e.message)).toEqual([]);
    expect(manager.connections().map((c) => [c.name, c.readyState])).toEqual(
      [["py-hello", "ready"], ["notes-ts", "ready"]],
    );
    expect(manager.registry.commands().map((c) => c.name).sort()).toEqual(["hellopy", "note"]);

    const weather = await toolByName(manager, "weather").execute({ city: "Berlin" }, ctx());
    expect(weather).toMatchObject({ isError: false, extension: "py-hello", content: [{ type: "text", text: "Berlin: 16°C, fog" }] });

    const noted = await manager.invokeCommand("NOTE", "  buy milk  ");
    expect(noted.command.name).toBe("note");
    expect(noted.response).toMatchObject({ action: "display", display: "noted: buy milk" });
    expect(ui.notes).toContainEqual({ extension: "notes-ts", level: "success", message: "saved note 1" });
    expect((await toolByName(manager, "read_notes").execute({}, ctx())).content).toEqual([{ type: "text", text: "buy milk" }]);
    // hello_ack.cwd is the user's project, not the extension directory.
    expect(await waitForLog(manager.connection("notes-ts")!.log.path, `host cwd ${cwd}`)).toContain(`host cwd ${cwd}`);
  });

  test("hello_ack carries protocol version, zot version, provider, model, the project cwd, extension/data dirs and capabilities", async () => {
    const root = tempDir();
    const record = join(root, "frames.jsonl");
    const dir = behaveExtension(root, "acked", [`record=${record}`]);
    const { manager, cwd } = host([dir]);
    await manager.start();
    const ack = JSON.parse(readFileSync(record, "utf8").split("\n")[0]!) as Record<string, unknown>;
    expect(ack).toMatchObject({
      type: "hello_ack", protocol_version: 1, provider: "anthropic", model: "claude-sonnet-4-5",
      cwd, extension_dir: dir, data_dir: dir,
    });
    expect(ack.zot_version).toMatch(/^\d+\.\d+\.\d+/);
    expect(ack.capabilities).toEqual(expect.arrayContaining(["call_tool", "tool_cancel"]));
  });

  test.skipIf(!hasJq)("the POSIX shell + jq example registers and answers (skipped only where jq is missing; .ci/run installs it)", async () => {
    const { manager } = host([copyExample(tempDir(), "shout-sh")]);
    await manager.start();
    expect(manager.connection("shout-sh")?.readyState).toBe("ready");
    expect((await manager.invokeCommand("shout", "hey")).response.display).toBe("HEY");
    expect((await toolByName(manager, "upper").execute({ text: "abc" }, ctx())).content).toEqual([{ type: "text", text: "ABC" }]);
  });

  test("discovery: project wins over global, explicit wins over both, disabled and dirs without manifest skipped", async () => {
    const home = tempDir();
    const cwd = tempDir();
    const global = join(home, "extensions");
    const project = join(cwd, ".zot", "extensions");
    behaveExtension(global, "shared", ["command=fromglobal"]);
    behaveExtension(project, "shared", ["command=fromproject"]);
    behaveExtension(global, "only-global", ["command=og"]);
    const disabled = behaveExtension(global, "off", ["command=off"]);
    await Bun.write(join(disabled, "extension.json"), JSON.stringify({ name: "off", exec: "./x", enabled: false }));
    mkdirSync(join(global, "leftover-state"), { recursive: true });
    const explicit = behaveExtension(tempDir(), "only-global", ["command=explicit"]);
    const { manager } = host([explicit], { home, cwd });
    await manager.start();
    expect(manager.connections().map((c) => [c.name, c.source])).toEqual([
      ["only-global", "explicit"],
      ["shared", "project"],
    ]);
    expect(manager.registry.commands().map((c) => c.name).sort()).toEqual(["explicit", "fromproject"]);
    expect(manager.discovery!.shadowed.map((s) => [s.loaded.manifest.name, s.source])).toEqual([
      ["only-global", "global"],
      ["shared", "global"],
    ]);
    expect(manager.discovery!.disabled.map((d) => d.loaded.manifest.name)).toEqual(["off"]);
  });

  test("--no-ext skips discovery but keeps explicit paths; two dirs claiming one name: one loads", async () => {
    const home = tempDir();
    behaveExtension(join(home, "extensions"), "disc");
    const root = tempDir();
    const a = behaveExtension(root, "twin", ["command=twina"], "twin-a");
    const b = behaveExtension(root, "twin", ["command=twinb"], "twin-b");
    const { manager } = host([a, b], { home, noDiscovery: true });
    await manager.start();
    expect(manager.connections().map((c) => c.name)).toEqual(["twin"]);
    expect(manager.discovery!.shadowed.map((s) => s.loaded.dir)).toEqual([b]);
    expect(manager.registry.commands().map((c) => c.name)).toEqual(["twina"]);
  });

  test("an extension that registers without ready is auto-readied and flagged", async () => {
    const { manager } = host([behaveExtension(tempDir(), "legacy", ["no-ready"])]);
    const started = Date.now();
    await manager.start();
    expect(manager.connection("legacy")!.readyState).toBe("auto");
    expect(manager.registry.command("greet")?.extension).toBe("legacy");
    expect(Date.now() - started).toBeLessThan(2_500);
  });

  test("built-in names win; the same command in different case: first wins; shadowing is logged", async () => {
    const root = tempDir();
    const a = behaveExtension(root, "first", ["command=Weather", "register-builtins"]);
    const b = behaveExtension(root, "second", ["command=weather"]);
    const { manager } = host([a, b]);
    await manager.start();
    expect(manager.registry.command("WEATHER")).toMatchObject({ name: "Weather", extension: "first" });
    expect(manager.registry.tool("bash")).toBeUndefined();
    expect(manager.registry.command("help")).toBeUndefined();
    const shadowed = manager.registry.shadowed.map((s) => `${s.extension}:${s.kind}:${s.name}:${s.heldBy}`).sort();
    expect(shadowed).toEqual([
      "first:command:help:built-in",
      "first:tool:bash:built-in",
      "second:command:weather:first",
      "second:tool:py_echo:first",
    ]);
    const log = await logText(manager.connection("second")!.log.path);
    expect(log).toContain("command /weather not registered: already taken by first");
    expect(await logText(manager.connection("first")!.log.path)).toContain('tool "bash" not registered: already taken by built-in');
  });

  test("ten extensions start concurrently under one deadline", async () => {
    const root = tempDir();
    const dirs = Array.from({ length: 10 }, (_, i) => quickExtension(root, `many${i}`));
    const { manager } = host(dirs);
    await manager.start();
    expect(manager.connections().filter((c) => c.readyState === "ready").length).toBe(10);
  });

  test("shutdown stops every process and its children", async () => {
    const root = tempDir();
    const pidFile = join(root, "pids.json");
    const { manager } = host([behaveExtension(root, "parent", ["child", `pid-file=${pidFile}`])]);
    await manager.start();
    const pids = JSON.parse(readFileSync(pidFile, "utf8")) as { pid: number; child: number };
    expect(isAlive(pids.pid) && isAlive(pids.child)).toBe(true);
    await manager.shutdown();
    expect(await waitFor(() => !isAlive(pids.pid) && !isAlive(pids.child))).toBe(true);
  });

  test("reload stops, re-reads manifests and respawns, remembering explicit paths", async () => {
    const root = tempDir();
    const dir = behaveExtension(root, "hot", ["command=before"]);
    const { manager } = host([dir]);
    await manager.start();
    expect(manager.registry.command("before")).toBeDefined();
    const oldPid = manager.connection("hot")!.pid!;
    behaveExtension(root, "hot", ["command=after"]);
    const stats = await manager.reload();
    expect(stats).toMatchObject({ stopped: 1, loaded: 1, ready: 1, errors: [] });
    expect(manager.registry.command("before")).toBeUndefined();
    expect(manager.registry.command("after")?.extension).toBe("hot");
    expect(isAlive(oldPid)).toBe(false);
  });

  test("command actions are routed to the handler; an error wins over the action", async () => {
    const calls: string[] = [];
    const handler: CommandActionHandler = {
      prompt: (t) => void calls.push(`prompt:${t}`),
      toolPrompt: (r) => void calls.push(`tool_prompt:${r.toolName}:${JSON.stringify(r.toolArgs)}:${r.prompt}`),
      insert: (t) => void calls.push(`insert:${t}`),
      display: (t) => void calls.push(`display:${t}`),
      openPanel: (p) => void calls.push(`panel:${p.id}:${p.title}:${p.lines.join("|")}`),
      noop: () => void calls.push("noop"),
      error: (m) => void calls.push(`error:${m}`),
    };
    const base = { type: "command_response" as const, id: "1", prompt: undefined, insert: undefined, display: undefined, open_panel: undefined, error: undefined, tool_name: undefined, tool_args: undefined };
    await dispatchCommandResponse("ext", "cmd", { ...base, action: "prompt", prompt: "go" }, handler);
    await dispatchCommandResponse("ext", "cmd", { ...base, action: "tool_prompt", prompt: "and push", tool_name: "skill", tool_args: { name: "x" } }, handler);
    await dispatchCommandResponse("ext", "cmd", { ...base, action: "insert", insert: "text" }, handler);
    await dispatchCommandResponse("ext", "cmd", { ...base, action: "display", display: "shown" }, handler);
    await dispatchCommandResponse("ext", "cmd", { ...base, action: "open_panel", open_panel: { id: "p", title: undefined, lines: ["a", "b"], footer: undefined } }, handler);
    await dispatchCommandResponse("ext", "cmd", { ...base, action: "noop" }, handler);
    await dispatchCommandResponse("ext", "cmd", { ...base, action: "display", display: "x", error: "boom" }, handler);
    await dispatchCommandResponse("ext", "cmd", { ...base, action: "dance" }, handler);
    await dispatchCommandResponse("ext", "cmd", { ...base, action: "tool_prompt", tool_name: "skill", tool_args: [1] }, handler);
    expect(calls).toEqual([
      "prompt:go",
      'tool_prompt:skill:{"name":"x"}:and push',
      "insert:text",
      "display:shown",
      "panel:p:ext:a|b",
      "noop",
      "error:extension /cmd: boom",
      'error:extension /cmd: unknown action "dance"',
      "error:extension /cmd: tool_prompt tool_args must be a JSON object",
    ]);
  });

  test("the log gets a start marker and the extension's stderr", async () => {
    const { manager, home } = host([behaveExtension(tempDir(), "logged", ["exit-before-hello=4"])]);
    await manager.start();
    const log = await waitForLog(join(home, "logs", "ext-logged.log"), "failing before hello");
    expect(log).toMatch(/\[zot\] starting logged\/1\.0\.0 at \d{4}-/);
    expect(log).toContain("failing before hello");
    expect(existsSync(join(home, "logs"))).toBe(true);
  });
});
