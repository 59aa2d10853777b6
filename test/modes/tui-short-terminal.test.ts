/**
 * The chat screen on a short terminal, end to end (dist/zot in a real PTY):
 * a --no-yolo question must show what it asks about. The live region is
 * at most rows - 1 rows and the renderer keeps its bottom rows, so before
 * the question got its rows first, an 8-row terminal showed the answers
 * (or only `[n] deny`) under the editor and status bar, and not the tool
 * or its command: the user answered blind. Likewise an extension's panel,
 * which has the keyboard: at 60x7 only its footer was left.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { type ModeEnv } from "./helpers.ts";
import { TEST_MS, rowsWith, startChat, useChatEnv, waitForCommand } from "./tui-chat.ts";

const PY_PANELS = join(import.meta.dir, "..", "fixtures", "extensions", "py-panels");

let env: ModeEnv;
useChatEnv((created) => {
  env = created;
});

describe("a short terminal", () => {
  for (const [columns, rows] of [[60, 8], [60, 6], [30, 6]] as const) {
    test(`at ${columns}x${rows} the --no-yolo question shows the tool and its command`, async () => {
      env.server.enqueue(
        { type: "tool_calls", calls: [{ name: "bash", arguments: { command: "echo short-marker" } }] },
        { type: "text", text: "done" },
      );
      const tui = await startChat(env, { args: ["--no-yolo"], columns, rows });
      tui.type("go");
      tui.press("enter");
      await tui.waitForText("allow this tool", "screen");
      await tui.waitForText(/bash\s+echo short-marker/, "screen");
      expect(rowsWith(tui.screen.screen(), "[y] allow once").length).toBe(1);
      for (const row of tui.screen.screen()) expect(Bun.stringWidth(row)).toBeLessThanOrEqual(columns);
      tui.type("n");
      await tui.waitForText("bash: denied");
    }, TEST_MS);
  }

  test("at 60x7 an extension's panel shows its title and first line, not only its footer", async () => {
    const tui = await startChat(env, { args: ["--ext", PY_PANELS], env: { ZOT_PANEL_LOG: join(env.base, "panel.log") }, columns: 60, rows: 7 });
    await waitForCommand(tui, "todos");
    tui.type("/todos");
    tui.press("enter");
    await tui.waitForText("Todos", "screen");
    await tui.waitForText("typed:", "screen");
    expect(rowsWith(tui.screen.screen(), "esc close").length).toBe(1);
    for (const row of tui.screen.screen()) expect(Bun.stringWidth(row)).toBeLessThanOrEqual(60);
    tui.press("escape");
    await tui.waitFor(() => rowsWith(tui.screen.screen(), "Todos").length === 0 || undefined, "the panel to close");
  }, TEST_MS);
});
