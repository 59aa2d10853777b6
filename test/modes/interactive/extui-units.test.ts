/**
 * Units of the extension UI part: the --no-yolo ConfirmQuestion (one dialog
 * at a time, the queue count, letters, digits, arrows, Esc, an aborted
 * request leaving the queue) and ExtensionProblems (failures kept for the
 * chat, the reload status holding the chat's copy back, a clean reload and
 * /clear dropping them, the bounds, the failed list).
 */
import { describe, expect, test } from "bun:test";
import type { ConfirmAnswer, ConfirmRequest } from "../../../src/agent/permissions.ts";
import { ConfirmQuestion } from "../../../src/modes/interactive/confirm.ts";
import { EARLY_ANSWER_MS } from "../../../src/modes/interactive/early-answer.ts";
import { ExtensionProblems, MAX_CHAT_ROWS, MAX_STATUS_ROWS } from "../../../src/modes/interactive/ext-problems.ts";
import { createTheme, type Key, TYPEAHEAD_QUIET_MS } from "../../../src/tui/index.ts";

const theme = createTheme(false);
const text = (value: string): Key => ({ kind: "text", text: value });
const named = (name: string): Key => ({ kind: "key", name, ctrl: false, alt: false, shift: false }) as Key;

function request(toolName: string, preview: string, signal = new AbortController().signal): ConfirmRequest {
  return { toolId: `id-${toolName}`, toolName, preview, signal };
}

describe("ConfirmQuestion", () => {
  test("asks one call at a time with its tool and key argument; keys answer it", async () => {
    const answered: [string, ConfirmAnswer][] = [];
    const question = new ConfirmQuestion(theme, () => {}, (req, choice) => answered.push([req.toolName, choice]));
    expect(question.dialog).toBeUndefined();
    const first = question.confirm(request("bash", "npm test"));
    const second = question.confirm(request("read", "a.txt"));
    const third = question.confirm(request("write", "b.txt"));
    const fourth = question.confirm(request("edit", "c.txt"));
    const rows = question.dialog!.render(80, 20).join("\n");
    expect(rows).toContain("allow this tool call?");
    expect(rows).toContain("bash  npm test");
    expect(rows).toContain("(3 more waiting)");
    expect(rows).toContain("[y] allow once  [a] always this tool  [A] always all  [n] deny");

    expect(question.handleKey(text("x"))).toBe(true); // swallowed
    question.handleKey(text("a"));
    expect(await first).toBe("always_tool");
    expect(question.dialog!.render(80, 20).join("\n")).toContain("read  a.txt");
    question.handleKey(text("4"));
    expect(await second).toBe("deny");
    question.handleKey(named("right"));
    question.handleKey(named("right"));
    question.handleKey(named("enter"));
    expect(await third).toBe("always_all");
    question.handleKey(named("escape"));
    expect(await fourth).toBe("cancel");
    expect(question.open).toBe(false);
    expect(question.handleKey(text("y"))).toBe(false);
    expect(answered).toEqual([["bash", "always_tool"], ["read", "deny"], ["write", "always_all"], ["edit", "cancel"]]);
  });

  test("the first letter of a prompt typed as the question appears does not answer it; an answer after a moment does at once", async () => {
    const answered: ConfirmAnswer[] = [];
    const question = new ConfirmQuestion(theme, () => {}, (_req, choice) => answered.push(choice));
    const asked = question.confirm(request("bash", "rm -rf build"));
    question.dialog!.render(80, 20);
    question.handleKey(text("A")); // "Also, …": would allow every tool for the session
    question.handleKey(text("l"));
    question.handleKey(text("s"));
    await Bun.sleep(TYPEAHEAD_QUIET_MS + 100);
    expect(answered).toEqual([]);
    expect(question.open).toBe(true);
    await Bun.sleep(EARLY_ANSWER_MS);
    question.handleKey(text("n"));
    expect(answered).toEqual(["deny"]);
    expect(await asked).toBe("deny");
  });

  test("an aborted request leaves the queue answered cancel, unasked", async () => {
    const answered: string[] = [];
    const question = new ConfirmQuestion(theme, () => {}, (req) => answered.push(req.toolName));
    const controller = new AbortController();
    const first = question.confirm(request("bash", "sleep 1", controller.signal));
    const second = question.confirm(request("read", "x"));
    controller.abort();
    expect(await first).toBe("cancel");
    expect(question.dialog!.render(80, 20).join("\n")).toContain("read  x");
    expect(question.dialog!.render(80, 20).join("\n")).not.toContain("more waiting");
    question.handleKey(text("1"));
    expect(await second).toBe("once");
    expect(answered).toEqual(["read"]);
  });
});

describe("ExtensionProblems", () => {
  const problem = (extension: string, lines: number) => ({
    message: [`extension "${extension}" failed to load: boom`, ...Array.from({ length: lines - 1 }, (_, i) => `  detail ${i}`)].join("\n"),
    context: { extension },
  });

  test("startup failures stay for the chat; a reload with errors shows the status instead; a clean reload clears", () => {
    let changes = 0;
    const problems = new ExtensionProblems(() => changes++);
    problems.startup([problem("bad", 2)]);
    expect(problems.chatRows(80, theme)).toEqual([
      "extension load errors (fix them, then /reload-ext; /clear hides this):",
      'extension "bad" failed to load: boom',
      "  detail 0",
    ]);
    expect(problems.failed).toEqual(["bad"]);
    problems.crashed("other");
    expect(problems.failed).toEqual(["bad", "other"]);

    problems.reloaded("reloaded: 1 stopped, 1 loaded (1 ready), 1 error(s)", [problem("worse", 1)]);
    expect(problems.statusRows(80, theme)).toEqual(["reloaded: 1 stopped, 1 loaded (1 ready), 1 error(s)", 'extension "worse" failed to load: boom']);
    expect(problems.chatRows(80, theme)).toEqual([]); // held back while the status shows
    expect(problems.failed).toEqual(["worse"]);
    problems.dispose(); // what the 5 s timer does, without waiting for it
    expect(problems.statusRows(80, theme)).toEqual([]);
    expect(problems.chatRows(80, theme)[1]).toBe('extension "worse" failed to load: boom');

    problems.reloaded("reloaded: 1 stopped, 1 loaded (1 ready)", []);
    expect(problems.statusRows(80, theme)).toEqual([]);
    expect(problems.chatRows(80, theme)).toEqual([]);
    expect(problems.failed).toEqual([]);
    expect(changes).toBeGreaterThanOrEqual(3);
  });

  test("bounded rows, cut to the width; /clear drops the chat's copy but not the failed list", () => {
    const problems = new ExtensionProblems(() => {});
    problems.reloaded("summary", [problem("big", 40)]);
    const status = problems.statusRows(30, theme);
    expect(status.length).toBe(MAX_STATUS_ROWS);
    expect(status.at(-1)).toContain("more line");
    expect(status.every((row) => Bun.stringWidth(row) <= 30)).toBe(true);
    problems.dispose();
    const chat = problems.chatRows(30, theme);
    expect(chat.length).toBe(MAX_CHAT_ROWS);
    expect(chat.every((row) => Bun.stringWidth(row) <= 30)).toBe(true);
    problems.clearChat();
    expect(problems.chatRows(30, theme)).toEqual([]);
    expect(problems.failed).toEqual(["big"]);
  });
});
