/**
 * The extensions written on the TypeScript SDK load and work through
 * dist/zot (print mode, stand-in model), run from where they are in the repo
 * (the template and guard-ts from where they are: they import the SDK by a
 * relative path; todo-ts from a temp copy, as it writes state): the template
 * sdk/typescript/template (its /hello command and greet tool),
 * examples/todo-ts (add_todo saves todos.json in the extension's data_dir)
 * and examples/guard-ts (blocks `rm -rf /`, rewrites `git push --force`,
 * redacts a secret from a tool result); todo-ts's panel in a PTY.
 */
import { expect, test } from "bun:test";
import { TEST_MS, startChat, useChatEnv } from "../../modes/tui-chat.ts";
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { toolResultsSent, type ModeEnv } from "../../modes/helpers.ts";
import { SDK_DIR } from "./probe.ts";

const EXAMPLES = join(SDK_DIR, "..", "..", "examples");
let env: ModeEnv;
useChatEnv((created) => (env = created));

/** A temp copy of examples/todo-ts (it writes todos.json beside its manifest), its SDK import made absolute. */
function todoCopy(): string {
  const todo = join(env.base, "todo-ts");
  cpSync(join(EXAMPLES, "todo-ts"), todo, { recursive: true });
  const main = join(todo, "index.ts");
  writeFileSync(main, readFileSync(main, "utf8").replace('"../../sdk/typescript/src/index.ts"', JSON.stringify(join(SDK_DIR, "src", "index.ts"))));
  return todo;
}

test("the template: /hello displays, the greet tool answers", async () => {
  const template = join(SDK_DIR, "template");
  const command = await env.run(["-p", "/hello bob", ...env.providerArgs(), "--ext", template]);
  expect(command.stderr).toBe("");
  expect(command.stdout).toBe("hello, bob from my-extension\n");
  env.server.enqueue({ type: "tool_calls", calls: [{ id: "g1", name: "greet", arguments: { name: "Ada" } }] }, { type: "text", text: "done" });
  const tool = await env.run(["-p", "greet Ada", ...env.providerArgs(), "--ext", template]);
  expect(tool.code).toBe(0);
  expect(toolResultsSent(env.server.requests[1]).get("g1")).toBe("Hello, Ada!");
}, 30_000);

test("todo-ts: add_todo saves in the extension's data_dir; guard-ts blocks, rewrites and redacts", async () => {
  const todo = todoCopy();
  {
    env.server.enqueue(
      {
        type: "tool_calls",
        calls: [
          { id: "t1", name: "add_todo", arguments: { text: "ship the sdk" } },
          { id: "b1", name: "bash", arguments: { command: "rm -rf /" } },
          { id: "b2", name: "bash", arguments: { command: "echo git push --force origin main" } },
          { id: "b3", name: "bash", arguments: { command: "echo key=sk-abcdefghijklmnop" } },
        ],
      },
      { type: "text", text: "done" },
    );
    const result = await env.run(["-p", "go", ...env.providerArgs(), "--ext", todo, "--ext", join(EXAMPLES, "guard-ts")], { timeoutMs: 30_000 });
    expect(result.stderr).not.toContain("failed to load");
    expect(result.code).toBe(0);
    const sent = toolResultsSent(env.server.requests[1]);
    expect(sent.get("t1")).toBe("added todo 1: ship the sdk");
    expect(JSON.parse(readFileSync(join(todo, "todos.json"), "utf8"))).toEqual([{ text: "ship the sdk", done: false }]);
    expect(sent.get("b1")).toContain("refused by guard-ts");
    expect(sent.get("b2")).toContain("git push --force-with-lease origin main");
    expect(sent.get("b3")).toContain("key=[redacted]");
    expect(sent.get("b3")).not.toContain("sk-abcdefghijklmnop");
  }
}, 40_000);

test("todo-ts in the chat screen: /todos, add an item typed fast, toggle it; saved", async () => {
  const todo = todoCopy();
  const tui = await startChat(env, { args: ["--ext", todo] });
  // Registered once the slash popup lists the command (typed again until it does).
  const onScreen = (text: string): boolean => tui.screen.screen().some((row) => row.includes(text));
  for (let tries = 0; ; tries++) {
    tui.type("/todo");
    const found = await tui.waitFor(() => (onScreen("your todo list") ? "yes" : onScreen("no matches") ? "no" : undefined), "the slash popup");
    tui.press("ctrl+u");
    await tui.waitFor(() => !onScreen("your todo list") && !onScreen("no matches"), "the popup to close");
    if (found === "yes") break;
    if (tries > 200) throw new Error(`todo-ts never registered\n${tui.dump()}`);
    await Bun.sleep(50);
  }
  tui.type("/todos");
  tui.press("enter");
  await tui.waitForText("╭─ Todos", "screen");
  tui.type("abuy oat milk and bread");
  tui.press("enter");
  await tui.waitForText("□ buy oat milk and bread", "screen");
  tui.type("x");
  await tui.waitForText("✓ buy oat milk and bread", "screen");
  expect(JSON.parse(readFileSync(join(todo, "todos.json"), "utf8"))).toEqual([{ text: "buy oat milk and bread", done: true }]);
}, TEST_MS);
