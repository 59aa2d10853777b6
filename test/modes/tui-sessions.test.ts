/**
 * Sessions on the chat screen end to end (dist/zot in a real PTY, the
 * stand-in model server): the `/sessions` picker (count = what resuming
 * restores, Enter resumes and replays, `r` renames, `d` deletes after a
 * confirm), `zot --resume` opening the same picker, `/session fork`,
 * `/session export`, `/session import`, and `/clear` starting a new session
 * file; a switch releases the old file's lock and sends session_end
 * (session_switch) then session_start with the new id.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { isLockedByOther } from "../../src/session/lock.ts";
import { lifecycleExtension, readRecord } from "../support/bridge-harness.ts";
import { type TuiPty } from "../support/tui-pty.ts";
import { requestTexts, type ModeEnv } from "./helpers.ts";
import { TEST_MS, squeezed, startChat, waitIdle, useChatEnv } from "./tui-chat.ts";

let env: ModeEnv;
useChatEnv((created) => {
  env = created;
});

type Row = Record<string, unknown>;

function rows(path: string): Row[] {
  return readFileSync(path, "utf8").trim().split("\n").map((line) => JSON.parse(line) as Row);
}

function messageTexts(path: string): string[] {
  return rows(path).flatMap((row) => {
    if (row.type !== "message") return [];
    const message = row.message as { content: { type: string; text?: string }[] };
    return message.content.flatMap((block) => (block.type === "text" && block.text !== undefined ? [block.text] : []));
  });
}

/** A session made by `zot -p` (so it lives in this project's sessions directory); returns its path. */
async function headlessSession(prompt: string, answer: string): Promise<string> {
  const before = new Set(env.sessionFiles());
  env.server.enqueue({ type: "text", text: answer });
  const run = await env.run(["-p", prompt, ...env.providerArgs()]);
  expect(run.code).toBe(0);
  const created = env.sessionFiles().filter((path) => !before.has(path));
  expect(created).toHaveLength(1);
  return created[0] ?? "";
}

function newFiles(before: readonly string[]): string[] {
  return env.sessionFiles().filter((path) => !before.includes(path));
}

/** Waits for `text` in the screen and scrollback, wherever zot wrapped it (whitespace ignored). */
function waitForContent(tui: TuiPty, text: string | RegExp): Promise<true> {
  const wanted = typeof text === "string" ? text.replace(/\s+/g, "") : text;
  return tui.waitFor(() => {
    const all = squeezed(tui.screen.all());
    return typeof wanted === "string" ? all.includes(wanted) : wanted.test(all);
  }, `${String(text)} (whitespace ignored)`);
}

async function prompt(tui: TuiPty, text: string, answer: string): Promise<void> {
  env.server.enqueue({ type: "text", text: answer });
  tui.type(text);
  tui.press("enter");
  await tui.waitForText(answer);
  await waitIdle(tui);
}

async function command(tui: TuiPty, text: string, expected: string | RegExp): Promise<void> {
  tui.type(text);
  tui.press("enter");
  await waitForContent(tui, expected);
  await waitIdle(tui);
}

/**
 * A session with 16 message rows and a compaction row keeping rows 3.. : a
 * resume restores the summary + 13 rows = 14 messages (the file has 16 rows).
 */
function compactedSession(dir: string): string {
  const path = join(dir, "20250101-000000-c0c0c0c0.jsonl");
  const time = "2025-01-01T00:00:00.000Z";
  const meta = { id: "c0c0c0c0-0000-4000-8000-000000000000", cwd: env.cwd, model: "claude-sonnet-4-5", provider: "anthropic", started: time, version: "0.1.0" };
  const lines = [JSON.stringify({ type: "meta", meta })];
  for (let i = 0; i < 16; i++) {
    const role = i % 2 === 0 ? "user" : "assistant";
    lines.push(JSON.stringify({ type: "message", message: { role, content: [{ type: "text", text: `compacted ${role} ${i}` }], time } }));
  }
  const summary = { role: "user", content: [{ type: "text", text: "summary of the early part" }], time };
  lines.push(JSON.stringify({ type: "compaction", message: summary, kept_from: 3 }));
  writeFileSync(path, `${lines.join("\n")}\n`);
  return path;
}

describe("the /sessions picker", () => {
  test("zot --resume opens it; the count it shows is what resuming restores (14, not the file's 16 rows)", async () => {
    const other = await headlessSession("an unrelated question", "an unrelated answer");
    const compacted = compactedSession(dirname(other));
    const tui = await startChat(env, { args: ["--resume"], columns: 110, rows: 30 });
    await tui.waitForText("Enter resume", "screen");
    const listed = tui.rowsOf("screen").find((row) => row.includes("compacted user 0")) ?? "";
    expect(listed).toContain("14 msgs");
    expect(listed).not.toContain("16 msgs");
    // The newest first: the compacted file has the newer mtime. Select it and resume.
    const selected = tui.rowsOf("screen").find((row) => row.includes("›") && row.includes("msgs")) ?? "";
    if (!selected.includes("compacted user 0")) tui.press("down");
    await tui.waitFor(() => tui.rowsOf("screen").some((row) => row.includes("›") && row.includes("compacted user 0")), "the compacted session selected");
    tui.press("enter");
    await waitForContent(tui, `resumed 14 message(s) from ${compacted}`);
    await tui.waitForText("compacted assistant 15");
    await waitIdle(tui);
    // The conversation continues in that file.
    await prompt(tui, "after the resume", "the resumed answer");
    const request = requestTexts(env.server.requests.at(-1));
    expect(request).toContain("summary of the early part");
    expect(request).toContain("compacted assistant 15");
    expect(messageTexts(compacted)).toContain("after the resume");
  }, TEST_MS);

  test("Enter resumes: the old file's lock is released, extensions get session_end (session_switch) then session_start with the new id", async () => {
    const earlier = await headlessSession("the earlier question", "the earlier answer");
    const record = join(env.base, "events.jsonl");
    const ext = lifecycleExtension(env.base, "watcher", ["events=session_start,session_end", `record=${record}`]);
    const before = env.sessionFiles();
    const tui = await startChat(env, { args: ["--ext", ext], columns: 110, rows: 30 });
    await prompt(tui, "the current question", "the current answer");
    const [current] = newFiles(before);
    expect(current).toBeDefined();
    const currentId = (rows(current ?? "")[0]?.meta as { id: string }).id;
    // The extension has started and seen this session open.
    await tui.waitFor(() => readRecord(record).some((frame) => frame.event === "session_start" && frame.session_id === currentId), "session_start of the first session");
    expect(isLockedByOther(current ?? "")).toBe(true);
    await command(tui, "/sessions", "Enter resume");
    await tui.waitFor(() => tui.rowsOf("screen").some((row) => row.includes("(current)")), "the current session marked");
    // Select the earlier session (the current one is the newest).
    tui.press("down");
    await tui.waitFor(() => tui.rowsOf("screen").some((row) => row.includes("›") && row.includes("the earlier question")), "the earlier session selected");
    tui.press("enter");
    await waitForContent(tui, `resumed 2 message(s) from ${earlier}`);
    await tui.waitForText("the earlier answer", "screen");
    await waitIdle(tui);
    expect(isLockedByOther(current ?? "")).toBe(false);
    expect(isLockedByOther(earlier)).toBe(true);
    const earlierId = (rows(earlier)[0]?.meta as { id: string }).id;
    await tui.waitFor(() => readRecord(record).some((frame) => frame.event === "session_start" && frame.session_id === earlierId), "session_start of the resumed session");
    const lifecycle = readRecord(record)
      .filter((frame) => frame.type === "event")
      .map((frame) => [frame.event, frame.session_id, frame.reason ?? null]);
    expect(lifecycle).toEqual([
      ["session_start", currentId, null],
      ["session_end", currentId, "session_switch"],
      ["session_start", earlierId, null],
    ]);
    await prompt(tui, "continuing the earlier one", "continued");
    expect(messageTexts(earlier)).toEqual(["the earlier question", "the earlier answer", "continuing the earlier one", "continued"]);
    expect(messageTexts(current ?? "")).toEqual(["the current question", "the current answer"]);
  }, TEST_MS);

  test("r renames through an input dialog; d deletes after a confirm (n keeps it); the current session cannot be deleted", async () => {
    const first = await headlessSession("first question", "first answer");
    const second = await headlessSession("second question", "second answer");
    const tui = await startChat(env, { columns: 110, rows: 30 });
    await command(tui, "/sessions", "Enter resume");
    // The newest (second) is selected first.
    await tui.waitFor(() => tui.rowsOf("screen").some((row) => row.includes("›") && row.includes("second question")), "second selected");
    tui.type("r");
    await tui.waitForText("rename session", "screen");
    tui.type("the renamed one");
    tui.press("enter");
    await tui.waitForText('renamed to "the renamed one"');
    await tui.waitFor(() => tui.rowsOf("screen").some((row) => row.includes("›") && row.includes("the renamed one")), "the new name in the picker");
    expect(rows(second).at(-1)).toEqual({ type: "rename", title: "the renamed one" });
    // d then n: kept.
    tui.type("d");
    await tui.waitForText("delete session", "screen");
    tui.type("n");
    await tui.waitForText("Enter resume", "screen");
    expect(existsSync(second)).toBe(true);
    // d then y: deleted, and the list shows what is left.
    tui.type("d");
    await tui.waitForText("delete session", "screen");
    tui.type("y");
    await waitForContent(tui, `deleted ${second}`);
    expect(existsSync(second)).toBe(false);
    const listRows = (): string[] => tui.rowsOf("screen").filter((row) => row.includes("msgs"));
    await tui.waitFor(() => !listRows().some((row) => row.includes("the renamed one")), "the deleted session gone from the list");
    expect(listRows().some((row) => row.includes("first question"))).toBe(true);
    expect(existsSync(first)).toBe(true);
    tui.press("escape");
    await tui.waitFor(() => !tui.rowsOf("screen").some((row) => row.includes("Enter resume")), "the picker closed");
    // The current session (once it has a message) is listed, marked, and refused by d.
    await prompt(tui, "now this one", "this answer");
    await command(tui, "/sessions", "(current)");
    tui.type("d");
    await tui.waitForText("this is the current session; it cannot be deleted here");
  }, TEST_MS);
});

describe("/session fork, export, import", () => {
  test("fork continues in a new session holding this conversation; the original file is untouched", async () => {
    const before = env.sessionFiles();
    const tui = await startChat(env, { columns: 110, rows: 30 });
    await prompt(tui, "before the fork", "answer before the fork");
    const [original] = newFiles(before);
    const originalBytes = readFileSync(original ?? "");
    await command(tui, "/session fork", /forkedinto.*:2message\(s\)/);
    const [fork] = newFiles([...before, original ?? ""]);
    expect(fork).toBeDefined();
    expect(isLockedByOther(original ?? "")).toBe(false);
    await prompt(tui, "after the fork", "answer after the fork");
    expect(readFileSync(original ?? "").equals(originalBytes)).toBe(true);
    const forkMeta = rows(fork ?? "")[0]?.meta as { parent?: string; fork_point?: number };
    expect(forkMeta.parent).toBe((rows(original ?? "")[0]?.meta as { id: string }).id);
    expect(forkMeta.fork_point).toBe(2);
    expect(messageTexts(fork ?? "")).toEqual(["before the fork", "answer before the fork", "after the fork", "answer after the fork"]);
    expect(requestTexts(env.server.requests.at(-1))).toContain("before the fork");
  }, TEST_MS);

  test("export writes markdown and --json JSONL (0600, never over a file, session untouched); import brings the JSONL back as a new session", async () => {
    const before = env.sessionFiles();
    const tui = await startChat(env, { columns: 120, rows: 30 });
    env.server.enqueue(
      { type: "tool_calls", calls: [{ id: "call-1", name: "bash", arguments: { command: "echo exported-tool-output" } }] },
      { type: "text", text: "the **final** answer" },
    );
    tui.type("run the tool");
    tui.press("enter");
    await tui.waitForText("final answer");
    await waitIdle(tui);
    const [session] = newFiles(before);
    const sessionBytes = readFileSync(session ?? "");
    const base = join(env.base, "exported");
    await command(tui, `/session export ${base}`, `and ${base}.jsonl`);
    for (const path of [`${base}.md`, `${base}.jsonl`]) expect(statSync(path).mode & 0o777).toBe(0o600);
    const markdown = readFileSync(`${base}.md`, "utf8");
    expect(markdown).toContain("## User\n\nrun the tool");
    expect(markdown).toContain("exported-tool-output");
    expect(markdown).toContain("the **final** answer");
    const events = readFileSync(`${base}.jsonl`, "utf8").trim().split("\n").map((line) => JSON.parse(line) as Row);
    expect(events.map((event) => event.type)).toEqual(["user_message", "assistant_message", "tool_call", "tool_result", "assistant_message"]);
    expect(events[2]).toMatchObject({ name: "bash", args: { command: "echo exported-tool-output" } });
    expect(readFileSync(session ?? "").equals(sessionBytes)).toBe(true);
    // A second export to the same place refuses to replace the files.
    await command(tui, `/session export ${base}.md`, "already exists");
    expect(readFileSync(`${base}.md`, "utf8")).toBe(markdown);

    // Import: a new session of this directory holding that conversation, and the current one.
    await command(tui, `/session import ${base}.jsonl`, /importedinto.*:4message\(s\)/);
    const imported = newFiles([...before, session ?? ""]);
    expect(imported).toHaveLength(1);
    expect(dirname(imported[0] ?? "")).toBe(dirname(session ?? ""));
    await prompt(tui, "after the import", "imported continues");
    const request = requestTexts(env.server.requests.at(-1));
    expect(request).toContain("run the tool");
    expect(request).toContain("exported-tool-output");
    expect(messageTexts(imported[0] ?? "")).toContain("after the import");
    expect(readFileSync(session ?? "").equals(sessionBytes)).toBe(true);
    expect(basename(imported[0] ?? "")).not.toBe(basename(session ?? ""));
  }, TEST_MS);
});

describe("/clear", () => {
  test("starts a new session file; the old one keeps its conversation", async () => {
    const before = env.sessionFiles();
    const tui = await startChat(env, { columns: 110, rows: 30 });
    await prompt(tui, "before the clear", "answer before");
    const [old] = newFiles(before);
    await command(tui, "/clear", "conversation cleared");
    expect(isLockedByOther(old ?? "")).toBe(false);
    await prompt(tui, "after the clear", "answer after");
    const [fresh] = newFiles([...before, old ?? ""]);
    expect(fresh).toBeDefined();
    expect(messageTexts(old ?? "")).toEqual(["before the clear", "answer before"]);
    expect(messageTexts(fresh ?? "")).toEqual(["after the clear", "answer after"]);
    expect(requestTexts(env.server.requests.at(-1))).not.toContain("before the clear");
  }, TEST_MS);
});
