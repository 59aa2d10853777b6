/**
 * kill -9 durability: a child bun process appends messages in a loop through
 * SessionWriter and reports each completed append on stdout; the parent
 * SIGKILLs it mid-stream. Every reported message must load, at most one line
 * (the one being written) may be lost, and appending afterwards must work.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { loadSession, SessionWriter, sessionDirForCwd } from "../../src/session/index.ts";
import { tempHome, userText } from "./helpers.ts";
import { removeTempDirs } from "../support/temp.ts";

afterAll(removeTempDirs);

const writerModule = resolve(import.meta.dir, "../../src/session/index.ts");

const childSource = `
import { SessionWriter } from ${JSON.stringify(writerModule)};
const [sessionsRoot, cwd] = process.argv.slice(2);
const writer = SessionWriter.create({ cwd, model: "m", provider: "anthropic", sessionsRoot });
const filler = "x".repeat(256 * 1024);
for (let i = 0; ; i++) {
  writer.appendMessage({ role: "user", content: [{ type: "text", text: i + ":" + filler }], time: new Date().toISOString() });
  writer.appendUsage({ input_tokens: i, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, cost_usd: 0 },
    { input_tokens: i, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, cost_usd: 0 });
  process.stdout.write(i + "\\n");
}
`;

async function runAndKill(sessionsRoot: string, cwd: string, script: string, minAppends: number): Promise<number> {
  const child = Bun.spawn([process.execPath, script, sessionsRoot, cwd], { stdout: "pipe", stderr: "pipe" });
  const reader = child.stdout.getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  let lastReported = -1;
  while (lastReported < minAppends) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`child exited early: ${await new Response(child.stderr).text()}`);
    buffered += decoder.decode(value, { stream: true });
    const lines = buffered.split("\n");
    buffered = lines.pop() ?? "";
    for (const line of lines) lastReported = Number(line);
  }
  child.kill("SIGKILL");
  await child.exited;
  expect(child.signalCode).toBe("SIGKILL");
  return lastReported;
}

describe("crash durability", () => {
  test("kill -9 mid-stream loses at most the line being written", async () => {
    const home = tempHome();
    const script = join(home.home, "child.ts");
    writeFileSync(script, childSource);
    const lastReported = await runAndKill(home.sessionsRoot, home.cwd, script, 40);

    const dir = sessionDirForCwd(home.cwd, home.sessionsRoot);
    const files = readdirSync(dir).filter((name) => name.endsWith(".jsonl"));
    expect(files).toHaveLength(1);
    const path = join(dir, files[0] ?? "");

    const loaded = loadSession(path);
    const indexes = loaded.messages.map((m) => (m.content[0]?.type === "text" ? Number(m.content[0].text.split(":")[0]) : -1));
    // Every message the child reported is there, in order, with no gaps.
    expect(indexes.length).toBeGreaterThanOrEqual(lastReported + 1);
    expect(indexes).toEqual(indexes.map((_, i) => i));
    // Only a torn final line may have been dropped.
    expect(loaded.warnings.every((w) => w.message === "torn last line dropped")).toBe(true);
    expect(loaded.warnings.length).toBeLessThanOrEqual(1);
    expect(readFileSync(path, "utf8").endsWith("\n")).toBe(true);
    expect(loaded.cumulativeUsage.input_tokens).toBeGreaterThanOrEqual(lastReported);

    const writer = SessionWriter.openExisting(path);
    writer.appendMessage(userText("after crash"));
    writer.close();
    const after = loadSession(path);
    expect(after.warnings).toEqual([]);
    expect(after.messages.at(-1)?.content).toEqual([{ type: "text", text: "after crash" }]);
    expect(after.messages).toHaveLength(indexes.length + 1);
  });
});
