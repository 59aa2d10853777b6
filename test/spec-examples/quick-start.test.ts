/**
 * The Python examples users copy first (extensions.md "Quick start" and the
 * write-zot-extension skill's hello-py), verbatim in
 * test/fixtures/spec-examples, installed the way the documents say
 * (`zot ext install ./hello-py` into a fresh ZOT_HOME) and driven through
 * dist/zot's chat screen: `/hellopy` sends the example's prompt to the model
 * and the model's greeting shows. Also the skill's `zot ext` command list
 * (install, --ext, --ext ., list, logs, disable, enable, remove) on the
 * weather example.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { requestMessages, type ModeEnv } from "../modes/helpers.ts";
import { TEST_MS, startChat, waitIdle, useChatEnv } from "../modes/tui-chat.ts";
import { copyExample, waitForCommand } from "./support.ts";

let env: ModeEnv;
useChatEnv((created) => (env = created));

/** The text of the last user message of model request `index`. */
function lastUserText(index: number): string {
  const user = requestMessages(env.server.requests[index]).filter((message) => message.role === "user").at(-1);
  const content = user?.content;
  if (typeof content === "string") return content;
  return (Array.isArray(content) ? content : []).map((block) => String((block as { text?: unknown }).text ?? "")).join("");
}

describe.each([
  ["hello-py", "Greet me very briefly in one sentence."],
  ["skill-hello-py", "Say hi briefly."],
])("%s", (fixture, prompt) => {
  test("installs with `zot ext install ./hello-py`; /hellopy prompts the model and the greeting shows", async () => {
    const source = copyExample(env.base, fixture, "hello-py");
    const installed = await env.run(["ext", "install", "./hello-py"], { cwd: env.base });
    expect(installed.code).toBe(0);
    expect(existsSync(join(env.home, "extensions", "hello-py", "extension.json"))).toBe(true);
    expect(readFileSync(join(env.home, "extensions", "hello-py", "hello.py"), "utf8")).toBe(readFileSync(join(source, "hello.py"), "utf8"));

    const listed = await env.run(["ext", "list"]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain("hello-py");

    env.server.enqueue({ type: "text", text: "Hi there, friend!" });
    const tui = await startChat(env);
    await waitForCommand(tui, "hellopy");
    tui.type("/hellopy");
    tui.press("enter");
    await tui.waitForText("Hi there, friend!");
    await waitIdle(tui);
    expect(env.server.requests.length).toBe(1);
    expect(lastUserText(0)).toBe(prompt);
  }, TEST_MS);
});

test("the skill's `zot ext` commands on the weather example", async () => {
  copyExample(env.base, "weather-frames-sh", "weather");
  const install = await env.run(["ext", "install", "./weather"], { cwd: env.base });
  expect(install.code).toBe(0);
  expect(existsSync(join(env.home, "extensions", "weather", "extension.json"))).toBe(true);

  const list = await env.run(["ext", "list"]);
  expect(list.code).toBe(0);
  expect(list.stdout).toContain("weather");
  expect(list.stdout).toContain("1.0.0");

  // A run loads it (its stderr log gets the start line), `ext logs weather` shows the log.
  env.server.enqueue({ type: "text", text: "ok" });
  const run = await env.run(["-p", "hi", ...env.providerArgs()]);
  expect(run.code).toBe(0);
  const logs = await env.run(["ext", "logs", "weather"]);
  expect(logs.code).toBe(0);
  expect(logs.stdout).toContain("weather");

  const disable = await env.run(["ext", "disable", "weather"]);
  expect(disable.code).toBe(0);
  expect((await env.run(["ext", "list"])).stdout).toMatch(/^global\s+weather\s+1\.0\.0\s+no\s/m);
  const enable = await env.run(["ext", "enable", "weather"]);
  expect(enable.code).toBe(0);
  expect((await env.run(["ext", "list"])).stdout).toMatch(/^global\s+weather\s+1\.0\.0\s+yes\s/m);

  // A script written for the original zot answers the [y/N] question on stdin.
  const declined = await env.run(["ext", "remove", "weather"], { stdin: "n\n" });
  expect(declined.code).toBe(1);
  expect(declined.stderr).toContain("aborted");
  expect(existsSync(join(env.home, "extensions", "weather"))).toBe(true);
  const remove = await env.run(["ext", "remove", "weather"], { stdin: "y\n" });
  expect(remove.stderr).toContain(`remove ${join(env.home, "extensions", "weather")}? [y/N] `);
  expect(remove.code).toBe(0);
  expect(existsSync(join(env.home, "extensions", "weather"))).toBe(false);

  // `zot --ext .` from inside the extension dir, and `--ext ./weather`: the tool answers the model.
  for (const [cwd, path] of [[join(env.base, "weather"), "."], [env.base, "./weather"]] as const) {
    env.server.enqueue(
      { type: "tool_calls", calls: [{ id: "call_w", name: "weather", arguments: { city: "Berlin" } }] },
      { type: "text", text: "it is foggy" },
    );
    const before = env.server.requests.length;
    const loaded = await env.run(["-p", "weather?", "--ext", path, ...env.providerArgs()], { cwd });
    expect(loaded.stderr).toBe("");
    expect(loaded.stdout).toBe("it is foggy\n");
    expect(JSON.stringify(env.server.requests[before + 1]?.body)).toContain("Berlin: 16°C, fog");
  }
}, TEST_MS);

test("/hellopy typed as soon as the editor is up (the original showed it once its extensions were ready) still runs", async () => {
  copyExample(env.base, "hello-py");
  env.server.enqueue({ type: "text", text: "Hi at once!" });
  const tui = await startChat(env, { args: ["--ext", "../hello-py"] });
  tui.type("/hellopy");
  tui.press("enter");
  await tui.waitForText("Hi at once!");
  expect(lastUserText(0)).toBe("Greet me very briefly in one sentence.");
}, TEST_MS);
