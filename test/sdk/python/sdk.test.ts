/**
 * The Python SDK (sdk/python/zot_extension) end to end against the compiled
 * dist/zot: a fixture extension (fixtures/sdk-ext/main.py) with the SDK
 * vendored beside it, as `zot ext new --lang python` scaffolds it, driven by
 * the stand-in model server (headless -p) and a real PTY (panels). Covers a
 * tool, a throwing tool (error result, extension alive), a command, the
 * tool_call and assistant_message interceptors, a panel typed into fast
 * (keys in order), an interactive tool dismissed (cancellation reaches the
 * handler), the template installed with `zot ext install`, and runs the SDK's
 * Python unit tests (test_sdk.py).
 */
import { describe, expect, test } from "bun:test";
import { cpSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT, tempDir } from "../../support/binary.ts";
import type { TuiPty } from "../../support/tui-pty.ts";
import { toolResultsSent, type ModeEnv } from "../../modes/helpers.ts";
import { TEST_MS, startChat, useChatEnv } from "../../modes/tui-chat.ts";

const SDK = join(REPO_ROOT, "sdk", "python", "zot_extension");
const FIXTURE = join(import.meta.dir, "fixtures", "sdk-ext");

/** A copy of `source` with the SDK vendored into it (what the scaffold does). */
function vendored(source: string): string {
  const dir = join(tempDir("zot-sdk-py-"), "ext");
  cpSync(source, dir, { recursive: true });
  cpSync(SDK, join(dir, "zot_extension"), { recursive: true, filter: (path) => !path.includes("__pycache__") });
  return dir;
}

let env: ModeEnv;
let logPath: string;
useChatEnv((created) => {
  env = created;
  logPath = join(env.base, "sdk.log");
});

type Logged = Record<string, unknown>;
function logged(): Logged[] {
  if (!existsSync(logPath)) return [];
  return readFileSync(logPath, "utf8").split("\n").filter((line) => line !== "").map((line) => JSON.parse(line) as Logged);
}

describe("headless", () => {
  test("a tool answers; a throwing tool is an error result and the extension still answers after it", async () => {
    env.server.enqueue(
      { type: "tool_calls", calls: [{ id: "c_boom", name: "boom", arguments: {} }] },
      { type: "tool_calls", calls: [{ id: "c_echo", name: "echo", arguments: { text: "still alive" } }] },
      { type: "text", text: "done" },
    );
    const result = await env.run(["-p", "go", "--ext", vendored(FIXTURE), ...env.providerArgs()], { env: { ZOT_SDK_LOG: logPath } });
    expect(result.code).toBe(0);
    expect(toolResultsSent(env.server.requests[1]).get("c_boom")).toContain("kaput from the handler");
    expect(toolResultsSent(env.server.requests[2]).get("c_echo")).toContain("echo: still alive");
    expect(result.stdout).toContain("done");
    // Events reach their handler (the event lane): one turn_end per model response.
    expect(logged().filter((entry) => entry.event === "turn_end")).toHaveLength(3);
  }, TEST_MS);

  test("interceptors: tool_call blocked and rewritten, assistant text replaced", async () => {
    env.server.enqueue(
      { type: "tool_calls", calls: [{ id: "c_rm", name: "bash", arguments: { command: "rm -rf /tmp/nothing-here" } }, { id: "c_rw", name: "bash", arguments: { command: "echo rewrite me" } }] },
      { type: "text", text: "the key is SECRET" },
    );
    const result = await env.run(["-p", "go", "--ext", vendored(FIXTURE), ...env.providerArgs()]);
    expect(result.code).toBe(0);
    const results = toolResultsSent(env.server.requests[1]);
    expect(results.get("c_rm")).toContain("refused by sdk-py: rm -rf");
    expect(results.get("c_rw")).toContain("REWRITTEN");
    expect(result.stdout).toContain("the key is [redacted]");
    expect(result.stdout).not.toContain("SECRET");
  }, TEST_MS);

  test("a command's prompt response reaches the model", async () => {
    env.server.enqueue({ type: "text", text: "ok" });
    const result = await env.run(["-p", "/sdkecho hello there", "--ext", vendored(FIXTURE), ...env.providerArgs()]);
    expect(result.code).toBe(0);
    expect(JSON.stringify(env.server.requests[0]?.body)).toContain("SDK says: hello there");
  }, TEST_MS);

  test("the template, installed with `zot ext install` (a copy of the directory), runs its tool", async () => {
    const source = vendored(join(REPO_ROOT, "sdk", "python", "template"));
    const install = await env.run(["ext", "install", source]);
    expect(install.code).toBe(0);
    env.server.enqueue({ type: "tool_calls", calls: [{ id: "c1", name: "shout", arguments: { text: "hello" } }] }, { type: "text", text: "ok" });
    const result = await env.run(["-p", "go", ...env.providerArgs()]);
    expect(result.code).toBe(0);
    expect(toolResultsSent(env.server.requests[1]).get("c1")).toContain("HELLO");
  }, TEST_MS);

  test("examples/weather-py (on the SDK, run from the repository) and weather-py-raw answer their tools", async () => {
    env.server.enqueue(
      { type: "tool_calls", calls: [{ id: "w1", name: "weather", arguments: { city: "Oslo" } }, { id: "w2", name: "bash", arguments: { command: "rm -rf /tmp/x" } }] },
      { type: "text", text: "ok" },
    );
    const result = await env.run(["-p", "go", "--ext", join(REPO_ROOT, "examples", "weather-py"), ...env.providerArgs()]);
    expect(result.code).toBe(0);
    expect(toolResultsSent(env.server.requests[1]).get("w1")).toContain("Oslo: 16°C, fog");
    expect(toolResultsSent(env.server.requests[1]).get("w2")).toContain("refused by the weather example");
    env.server.enqueue({ type: "tool_calls", calls: [{ id: "r1", name: "weather", arguments: { city: "Rome" } }] }, { type: "text", text: "ok" });
    const raw = await env.run(["-p", "go", "--ext", join(REPO_ROOT, "examples", "weather-py-raw"), ...env.providerArgs()]);
    expect(raw.code).toBe(0);
    expect(toolResultsSent(env.server.requests[3]).get("r1")).toContain("Rome: 16°C, fog");
  }, TEST_MS);
});

describe("interactive", () => {
  async function ready(tui: TuiPty): Promise<void> {
    // Commands join when the extension is ready: type the prefix until the popup lists /typer.
    for (let tries = 0; ; tries += 1) {
      tui.type("/type");
      const found = await tui.waitFor(() => {
        const screen = tui.screen.screen();
        return screen.some((row) => row.includes("a panel that shows what you type")) ? "yes" : screen.some((row) => row.includes("no matches")) ? "no" : undefined;
      }, "the slash popup");
      tui.press("ctrl+u");
      if (found === "yes") return;
      if (tries > 200) throw new Error(`/typer never registered\n${tui.dump()}`);
      await Bun.sleep(50);
    }
  }

  test("a panel typed into fast gets every key in order, and draws them in order", async () => {
    const tui = await startChat(env, { args: ["--ext", vendored(FIXTURE)], env: { ZOT_SDK_LOG: logPath } });
    await ready(tui);
    tui.type("/typer");
    tui.press("enter");
    await tui.waitForText("typed:", "screen");
    const text = Array.from({ length: 400 }, (_, i) => "abcdefghijklmnopqrstuvwxyz0123456789"[i % 36] as string).join("");
    tui.type(text);
    const keys = (): string[] => logged().filter((entry) => entry.panel === "typer" && entry.key === "rune").map((entry) => String(entry.text));
    await tui.waitFor(() => keys().length >= text.length || undefined, "every key to reach the extension");
    expect(keys().join("")).toBe(text);
    await tui.waitForText(`typed: ${text.slice(0, 60)}`, "screen");
    tui.press("escape");
    await tui.waitFor(() => logged().some((entry) => entry.panel === "typer" && entry.closed === true), "panel_close to reach on_close");
  }, TEST_MS);

  test("an interactive tool answered by its panel; dismissing the next cancels its handler", async () => {
    env.server.enqueue(
      { type: "tool_calls", calls: [{ id: "q1", name: "ask", arguments: { question: "colour?" } }] },
      { type: "tool_calls", calls: [{ id: "q2", name: "ask", arguments: { question: "again?" } }] },
      { type: "text", text: "thanks" },
    );
    const tui = await startChat(env, { args: ["--ext", vendored(FIXTURE)], env: { ZOT_SDK_LOG: logPath } });
    await ready(tui);
    tui.type("ask me");
    tui.press("enter");
    // The panel's own line: the tool card's title shows the arguments ("colour?") before the panel opens, and keys typed then go to the editor.
    await tui.waitForText("│ colour?", "screen");
    tui.type("blue");
    await tui.waitForText("> blue", "screen");
    tui.press("enter");
    await tui.waitForText("│ again?", "screen");
    tui.press("escape");
    await tui.waitFor(() => logged().some((entry) => typeof entry.handler_saw_cancel === "string") || undefined, "the handler to see the cancellation");
    await tui.waitForText("thanks");
    expect(toolResultsSent(env.server.requests[1]).get("q1")).toContain("answer: blue");
    expect(toolResultsSent(env.server.requests[2]).get("q2")).toContain("cancelled");
    expect(logged().some((entry) => typeof entry.cancelled === "string")).toBe(true);
  }, TEST_MS);
});

test("the SDK's Python unit tests pass (python3 -m unittest)", async () => {
  const proc = Bun.spawn(["python3", "-m", "unittest", "-q", "test_sdk"], {
    cwd: import.meta.dir, stdout: "pipe", stderr: "pipe", env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1" },
  });
  const [code, err] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
  expect({ code, tail: code === 0 ? "" : err.slice(-4000) }).toEqual({ code: 0, tail: "" });
}, TEST_MS);
