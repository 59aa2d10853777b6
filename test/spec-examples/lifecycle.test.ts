/**
 * What extensions.md says about layout and lifecycle, on the spec's own
 * examples, through dist/zot: `/reload-ext` after an edit ("edit, save,
 * /reload-ext, done"), command names matched case-insensitively with the
 * canonical spelling sent, the manifest's `args` (the weather manifest's
 * `--mode daemon`), a project-local extension's hello_ack paths (with
 * --trust), and a skill-only bundle that is never spawned.
 */
import { expect, test } from "bun:test";
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { requestMessages, type ModeEnv } from "../modes/helpers.ts";
import { TEST_MS, startChat, waitIdle, useChatEnv } from "../modes/tui-chat.ts";
import { SPEC_EXAMPLES, copyExample, waitForCommand } from "./support.ts";

let env: ModeEnv;
useChatEnv((created) => (env = created));

function lastUserText(index: number): string {
  return JSON.stringify(requestMessages(env.server.requests[index]).filter((message) => message.role === "user").at(-1));
}

test("/reload-ext picks up an edit of the installed quick-start extension; /HELLOPY reaches hellopy", async () => {
  const installed = join(env.home, "extensions", "hello-py");
  mkdirSync(join(env.home, "extensions"));
  cpSync(join(SPEC_EXAMPLES, "hello-py"), installed, { recursive: true });
  env.server.enqueue({ type: "text", text: "first greeting" }, { type: "text", text: "second greeting" }, { type: "text", text: "third greeting" });
  const tui = await startChat(env);
  await waitForCommand(tui, "hellopy");
  tui.type("/HELLOPY");
  tui.press("enter");
  await tui.waitForText("first greeting");
  await waitIdle(tui);
  expect(lastUserText(0)).toContain("Greet me very briefly in one sentence.");

  const script = join(installed, "hello.py");
  writeFileSync(script, readFileSync(script, "utf8").replace("Greet me very briefly in one sentence.", "Greet me after the reload."));
  tui.type("/reload-ext");
  tui.press("enter");
  await tui.waitForText(/reloaded/i, "screen");
  await waitIdle(tui);
  await waitForCommand(tui, "hellopy");
  tui.type("/hellopy");
  tui.press("enter");
  await tui.waitForText("second greeting");
  expect(lastUserText(1)).toContain("Greet me after the reload.");
}, TEST_MS);

test("manifest args reach the process; a project-local extension gets its own dir in hello_ack (--trust)", async () => {
  const dir = join(env.cwd, ".zot", "extensions", "weather");
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "weather"),
    '#!/bin/sh\nprintf \'%s\\n\' "$@" > argv.txt\necho \'{"type":"hello","name":"weather","version":"1.0.0","capabilities":["commands","tools","panels"]}\'\nIFS= read -r ack\nprintf \'%s\\n\' "$ack" > ack.json\necho \'{"type":"ready"}\'\nwhile IFS= read -r line; do case "$line" in *shutdown*) echo \'{"type":"shutdown_ack"}\'; exit 0;; esac; done\n',
  );
  chmodSync(join(dir, "weather"), 0o755);
  // extensions.md's weather manifest, verbatim.
  writeFileSync(
    join(dir, "extension.json"),
    JSON.stringify({ name: "weather", version: "1.0.0", exec: "./weather", args: ["--mode", "daemon"], language: "go", description: "current weather for any city", enabled: true }, null, 2),
  );
  env.server.enqueue({ type: "text", text: "ok" });
  const result = await env.run(["-p", "hi", "--trust", ...env.providerArgs()]);
  expect(result.code).toBe(0);
  expect(readFileSync(join(dir, "argv.txt"), "utf8")).toBe("--mode\ndaemon\n");
  const ack = JSON.parse(readFileSync(join(dir, "ack.json"), "utf8")) as Record<string, unknown>;
  expect(ack).toMatchObject({ type: "hello_ack", protocol_version: 1, cwd: env.cwd, extension_dir: dir, data_dir: dir });
});

test("a skill-only bundle (no exec) is installed and its skill offered, without a process", async () => {
  const bundle = join(env.base, "skills-only");
  mkdirSync(join(bundle, "skills", "release-notes"), { recursive: true });
  writeFileSync(join(bundle, "extension.json"), JSON.stringify({ name: "skills-only", version: "1.0.0", skills: ["skills"] }));
  writeFileSync(join(bundle, "skills", "release-notes", "SKILL.md"), "---\nname: release-notes\ndescription: write release notes\n---\nRELEASE NOTES BODY\n");
  expect((await env.run(["ext", "install", "./skills-only"], { cwd: env.base })).code).toBe(0);
  env.server.enqueue({ type: "tool_calls", calls: [{ id: "call_k", name: "skill", arguments: { name: "release-notes" } }] }, { type: "text", text: "done" });
  const result = await env.run(["-p", "notes please", ...env.providerArgs()]);
  expect(result.stderr).toBe("");
  expect(result.stdout).toBe("done\n");
  expect(JSON.stringify(env.server.requests[0]?.body)).toContain("release-notes");
  expect(JSON.stringify(env.server.requests[1]?.body)).toContain("RELEASE NOTES BODY");
  expect(existsSync(join(env.home, "logs", "ext-skills-only.log"))).toBe(false);
});
