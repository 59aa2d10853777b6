/**
 * Resumed sessions on the chat screen end to end (dist/zot in a real PTY):
 * `-c` shows the earlier conversation in the terminal's scrollback, rendered
 * as it would have been live (markdown, single newlines kept), and the next
 * prompt continues it; `--session` on a 5,000-message file shows its last
 * part with a line saying how many earlier messages are not shown.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { writeGeneratedSession, sessionText } from "../support/session-file.ts";
import { requestTexts, type ModeEnv } from "./helpers.ts";
import { TEST_MS, expectNoClears, occurrences, rowsWith, startChat, waitIdle, useChatEnv } from "./tui-chat.ts";

let env: ModeEnv;
useChatEnv((created) => {
  env = created;
});

describe("resumed sessions", () => {
  test("-c shows the earlier conversation in scrollback, rendered, and the next prompt continues it", async () => {
    const lines = Array.from({ length: 40 }, (_, i) => `earlier line ${String(i + 1).padStart(2, "0")}`);
    env.server.enqueue({ type: "text", text: `The **earlier** answer:\n${lines.join("\n")}` });
    const first = await env.run(["-p", "the earlier question", ...env.providerArgs()]);
    expect(first.code).toBe(0);
    expect(env.sessionFiles()).toHaveLength(1);

    const tui = await startChat(env, { args: ["-c"], columns: 100, rows: 24 });
    await tui.waitForText("earlier line 40", "screen");
    await tui.waitFor(() => tui.screen.scrollback().some((row) => row.includes("the earlier question")), "the earlier prompt in the scrollback");
    const all = tui.screen.all();
    expect(tui.screen.scrollback().some((row) => row.trim() === "earlier line 01")).toBe(true);
    // Rendered as it would have been live: markdown, one row per line, each once.
    expect(rowsWith(all, "The earlier answer:")).toHaveLength(1);
    expect(rowsWith(all, "**")).toEqual([]);
    const trimmed = all.map((row) => row.trim());
    for (const line of lines) expect(trimmed.filter((row) => row === line)).toHaveLength(1);
    expect(occurrences(all, "the earlier question")).toBe(1);

    env.server.enqueue({ type: "text", text: "the continued answer" });
    tui.type("and now?");
    tui.press("enter");
    await tui.waitForText("the continued answer");
    await waitIdle(tui);
    const request = requestTexts(env.server.requests[1]);
    expect(request).toContain("the earlier question");
    expect(request).toContain("and now?");
    expectNoClears(tui);
  }, TEST_MS);

  test("--session with 5,000 messages shows the last part and says how many earlier messages are not shown", async () => {
    const path = join(env.base, "long.jsonl");
    writeGeneratedSession({ path, cwd: env.cwd, messages: 5000 });
    const tui = await startChat(env, { args: ["--session", path], columns: 100, rows: 30 });
    const last = sessionText(5000).replace(/\*\*|`/g, "");
    await tui.waitForText(last, "screen");
    await waitIdle(tui);
    const all = tui.screen.all();
    // Not all of it: the first messages are left out, and a line says how many.
    expect(rowsWith(all, sessionText(1))).toEqual([]);
    const note = rowsWith(all, /\b\d[\d,]*\b.*\b(earlier|not shown|hidden|omitted)\b/i);
    expect(note.length).toBeGreaterThanOrEqual(1);
    const hidden = Number((/\b(\d[\d,]*)\b/.exec(note[0] ?? "")?.[1] ?? "0").replace(/,/g, ""));
    expect(hidden).toBeGreaterThan(0);
    expect(hidden).toBeLessThan(5000);
    // The shown part is the tail, in order: the message before the last one is there too.
    expect(rowsWith(all, sessionText(4999))).toHaveLength(1);
    expectNoClears(tui);
  }, TEST_MS);
});
