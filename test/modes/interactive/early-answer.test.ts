/**
 * EarlyAnswerGuard (modes/interactive/early-answer.ts) around a real
 * ChoiceDialog, with a hand-driven clock: an answer in the first
 * EARLY_ANSWER_MS is held until TYPEAHEAD_QUIET_MS of quiet, dropped when
 * another key follows (Esc still dismisses), and a later answer is at once.
 */
import { expect, test } from "bun:test";
import { ChoiceDialog, createTheme, type Key, type Overlay, TYPEAHEAD_QUIET_MS } from "../../../src/tui/index.ts";
import { EARLY_ANSWER_MS, EarlyAnswerGuard } from "../../../src/modes/interactive/early-answer.ts";

const text = (value: string): Key => ({ kind: "text", text: value });
const escape: Key = { kind: "key", name: "escape", ctrl: false, alt: false, shift: false };

function setup() {
  let now = 0;
  const chosen: string[] = [];
  const closed: Overlay[] = [];
  const dialog = new ChoiceDialog({
    theme: createTheme(false),
    title: "trust?",
    choices: [{ key: "t", label: "trust", value: "trust" }, { key: "n", label: "no", value: "skip" }],
    escape: "dismiss",
    onChoose: (value) => void chosen.push(value),
  });
  const guard = new EarlyAnswerGuard(dialog, { answerKeys: ["t", "n"], close: (overlay) => void closed.push(overlay), now: () => now });
  return { guard, chosen, closed, advance: (ms: number) => (now += ms) };
}

test("an early answer is applied after a quiet moment, and the guard asks to be closed", async () => {
  const { guard, chosen, closed } = setup();
  expect(guard.handleKey(text("t"))).toBe("handled");
  expect(guard.holding).toBe(true);
  expect(chosen).toEqual([]);
  await Bun.sleep(TYPEAHEAD_QUIET_MS + 100);
  expect(chosen).toEqual(["trust"]);
  expect(closed).toEqual([guard]);
});

test("a key after an early answer drops it (typing); Esc then dismisses", async () => {
  const { guard, chosen, closed } = setup();
  guard.handleKey(text("t"));
  expect(guard.handleKey(text("e"))).toBe("handled");
  expect(guard.holding).toBe(false);
  await Bun.sleep(TYPEAHEAD_QUIET_MS + 100);
  expect(chosen).toEqual([]);
  expect(closed).toEqual([]);
  guard.handleKey(text("n"));
  expect(guard.handleKey(escape)).toBe("close");
  expect(chosen).toEqual(["dismiss"]);
});

test("after the early window an answer is at once; closing the overlay cancels a held one", async () => {
  const first = setup();
  first.advance(EARLY_ANSWER_MS);
  expect(first.guard.handleKey(text("n"))).toBe("close");
  expect(first.chosen).toEqual(["skip"]);

  const second = setup();
  second.guard.handleKey(text("t"));
  second.guard.onClose();
  await Bun.sleep(TYPEAHEAD_QUIET_MS + 100);
  expect(second.chosen).toEqual([]);
});
