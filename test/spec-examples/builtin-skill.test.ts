/**
 * The examples of zot's own built-in write-zot-extension skill (what the
 * model reads when asked to write an extension), kept verbatim in
 * test/fixtures/spec-examples/builtin-skill-* (checked against the skill's
 * text here, so an edit of the skill re-runs them), through dist/zot: the
 * Python `shout` tool and `/greet`, the TypeScript `/note` and `read_notes`.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { BUILTIN_SKILLS } from "../../src/skills/builtin.ts";
import { requestMessages, toolResultsSent, type ModeEnv } from "../modes/helpers.ts";
import { TEST_MS, startChat, waitIdle, useChatEnv } from "../modes/tui-chat.ts";
import { SPEC_EXAMPLES, copyExample, waitForCommand } from "./support.ts";

let env: ModeEnv;
useChatEnv((created) => (env = created));

const body = BUILTIN_SKILLS.find((skill) => skill.name === "write-zot-extension")?.body ?? "";

test("the fixtures are the skill's examples, verbatim", () => {
  expect(readFileSync(join(SPEC_EXAMPLES, "builtin-skill-greet-py", "greet.py"), "utf8")).toBe(body.match(/```python\n([\s\S]*?)```/)?.[1] ?? "");
  expect(readFileSync(join(SPEC_EXAMPLES, "builtin-skill-notes-ts", "index.ts"), "utf8")).toBe(body.match(/```ts\n([\s\S]*?)```/)?.[1] ?? "");
  expect(body).toContain(`Manifest: \`${readFileSync(join(SPEC_EXAMPLES, "builtin-skill-greet-py", "extension.json"), "utf8").trim()}\``);
  expect(body).toContain(`Manifest: \`${readFileSync(join(SPEC_EXAMPLES, "builtin-skill-notes-ts", "extension.json"), "utf8").trim()}\``);
});

test("Python greet: the shout tool answers the model; /greet prompts it", async () => {
  const dir = copyExample(env.base, "builtin-skill-greet-py", "greet");
  env.server.enqueue({ type: "tool_calls", calls: [{ id: "call_s", name: "shout", arguments: { text: "hello" } }] }, { type: "text", text: "shouted" });
  const printed = await env.run(["-p", "shout hello", "--ext", dir, ...env.providerArgs()]);
  expect(printed.stderr).toBe("");
  expect(printed.stdout).toBe("shouted\n");
  expect(toolResultsSent(env.server.requests[1]).get("call_s")).toBe("HELLO");

  env.server.enqueue({ type: "text", text: "Hello, you!" });
  const tui = await startChat(env, { args: ["--ext", dir] });
  await waitForCommand(tui, "greet");
  tui.type("/greet");
  tui.press("enter");
  await tui.waitForText("Hello, you!");
  expect(JSON.stringify(requestMessages(env.server.requests[2]).at(-1))).toContain("Greet me in one sentence.");
}, TEST_MS);

test("TypeScript notes: /note then the model's read_notes sees it", async () => {
  const dir = copyExample(env.base, "builtin-skill-notes-ts", "notes");
  env.server.enqueue({ type: "tool_calls", calls: [{ id: "call_r", name: "read_notes", arguments: {} }] }, { type: "text", text: "you noted milk" });
  const tui = await startChat(env, { args: ["--ext", dir] });
  await waitForCommand(tui, "note");
  tui.type("/note buy milk");
  tui.press("enter");
  await tui.waitForText("noted", "screen");
  tui.type("what are my notes?");
  tui.press("enter");
  await tui.waitForText("you noted milk");
  await waitIdle(tui);
  expect(toolResultsSent(env.server.requests[1]).get("call_r")).toBe("buy milk");
}, TEST_MS);
