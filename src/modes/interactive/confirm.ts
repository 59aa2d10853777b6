/**
 * The --no-yolo confirmation: one ChoiceDialog overlay per tool call, above
 * every other overlay (live.ts draws `dialog` before the overlay stack, and
 * keymap.ts gives it the keys first). The box is titled `allow this tool
 * call?` and shows the tool's name and key argument (the gate's preview:
 * the first of command/path/file_path/url/query/name, else compact JSON,
 * at most 120 characters; "arguments rewritten by <ext> (not the model's)"
 * below it when an extension's guard rewrote them), then the answers
 * `[y] allow once  [a] always this tool  [A] always all  [n] deny`.
 * Keys: y/a/A/n (or 1-4, as in the original), ←/→ or ↑/↓ then Enter, Esc → cancel;
 * every other key is swallowed while a question is open (Ctrl+C still stops
 * the turn: keymap.ts handles it first). An answer (a letter, a digit or
 * Enter) less than TYPEAHEAD_QUIET_MS after a typed key is ignored
 * (key-clock.ts): typing meant for the prompt never answers; an answer in
 * the first EARLY_ANSWER_MS after a question appeared waits for a quiet
 * moment first (early-answer.ts): the first letter of a prompt the user
 * starts typing as it pops up does not answer it. Requests queue: one dialog at a
 * time, `(N more waiting)` when several wait. A request whose signal aborts
 * (turn cancelled, /yolo) leaves the queue and answers "cancel".
 */
import type { ConfirmAnswer, ConfirmRequest, Confirmer } from "../../agent/permissions.ts";
import { ChoiceDialog, displayText, type Key, type KeyClock, type Overlay, type Theme } from "../../tui/index.ts";
import { EarlyAnswerHold, isAnswerKey } from "./early-answer.ts";

interface PendingQuestion {
  readonly request: ConfirmRequest;
  readonly answer: (choice: ConfirmAnswer) => void;
  dialog: ChoiceDialog | undefined;
  /** Made when the question is first shown (or first gets a key): early answers wait for quiet. */
  hold: EarlyAnswerHold | undefined;
}

export const CONFIRM_TITLE = "allow this tool call?";

const CHOICES: readonly { readonly key: string; readonly digit: string; readonly label: string; readonly value: ConfirmAnswer }[] = [
  { key: "y", digit: "1", label: "allow once", value: "once" },
  { key: "a", digit: "2", label: "always this tool", value: "always_tool" },
  { key: "A", digit: "3", label: "always all", value: "always_all" },
  { key: "n", digit: "4", label: "deny", value: "deny" },
];

/** Keys that answer: the letters and the digits (Enter too: isAnswerKey). */
const ANSWER_KEYS: readonly string[] = CHOICES.flatMap((choice) => [choice.key, choice.digit]);

const ANSWER_WORDS: Readonly<Record<ConfirmAnswer, string>> = {
  once: "allowed once",
  always_tool: "allowed (always for this tool)",
  always_all: "allowed (always, every tool)",
  deny: "denied",
  cancel: "cancelled",
};

function isAnswer(value: string): value is ConfirmAnswer {
  return value in ANSWER_WORDS;
}

export class ConfirmQuestion implements Confirmer {
  readonly #queue: PendingQuestion[] = [];
  readonly #theme: Theme;
  readonly #changed: () => void;
  readonly #answered: (request: ConfirmRequest, choice: ConfirmAnswer) => void;
  readonly #clock: KeyClock | undefined;

  constructor(theme: Theme, changed: () => void, answered: (request: ConfirmRequest, choice: ConfirmAnswer) => void, clock?: KeyClock) {
    this.#theme = theme;
    this.#clock = clock;
    this.#changed = changed;
    this.#answered = answered;
  }

  get open(): boolean {
    return this.#queue.length > 0;
  }

  /** The dialog of the request asked now (drawn above every other overlay), or undefined. */
  get dialog(): Overlay | undefined {
    const current = this.#queue[0];
    if (current === undefined) return undefined;
    current.dialog ??= this.#dialogFor(current);
    current.hold ??= new EarlyAnswerHold();
    return current.dialog;
  }

  confirm(request: ConfirmRequest): Promise<ConfirmAnswer> {
    return new Promise<ConfirmAnswer>((resolve) => {
      if (request.signal.aborted) {
        resolve("cancel");
        return;
      }
      const question: PendingQuestion = {
        request,
        dialog: undefined,
        hold: undefined,
        answer: (choice) => {
          const index = this.#queue.indexOf(question);
          if (index < 0) return;
          question.hold?.cancel();
          this.#queue.splice(index, 1);
          request.signal.removeEventListener("abort", onAbort);
          // The next dialog is built afresh: the waiting count changed.
          for (const waiting of this.#queue) waiting.dialog = undefined;
          this.#changed();
          resolve(choice);
        },
      };
      const onAbort = (): void => question.answer("cancel");
      request.signal.addEventListener("abort", onAbort, { once: true });
      this.#queue.push(question);
      if (this.#queue[0] !== question) this.#queue[0]!.dialog = undefined;
      this.#changed();
    });
  }

  /** Takes the key when a question is open; true when it was consumed. */
  handleKey(key: Key): boolean {
    const current = this.#queue[0];
    if (current === undefined) return false;
    const hold = (current.hold ??= new EarlyAnswerHold());
    const applyLater = (): void => {
      if (this.#queue[0] === current) this.#answerKey(current, key);
    };
    if (hold.take(key, isAnswerKey(key, ANSWER_KEYS), applyLater)) this.#changed();
    else this.#answerKey(current, key);
    return true;
  }

  /** A key for the question asked now: a digit answers directly, any other goes to its dialog. */
  #answerKey(current: PendingQuestion, key: Key): void {
    const digit = key.kind === "text" ? CHOICES.find((choice) => choice.digit === key.text) : undefined;
    const dialog = this.dialog;
    if (digit !== undefined) {
      if (dialog instanceof ChoiceDialog && dialog.typedAhead()) return;
      this.#choose(current, digit.value);
      return;
    }
    if (dialog !== undefined) dialog.handleKey(key);
    this.#changed();
  }

  #choose(question: PendingQuestion, choice: ConfirmAnswer): void {
    if (!this.#queue.includes(question)) return;
    this.#answered(question.request, choice);
    question.answer(choice);
  }

  #dialogFor(question: PendingQuestion): ChoiceDialog {
    const { toolName, preview } = question.request;
    const waiting = this.#queue.length - 1;
    const lines = [`${this.#theme.accent(displayText(toolName))}  ${displayText(preview).replace(/\s*\n\s*/g, " ")}`];
    const rewrittenBy = question.request.rewrittenBy ?? [];
    if (rewrittenBy.length > 0) lines.push(this.#theme.warning(`arguments rewritten by ${displayText(rewrittenBy.join(", "))} (not the model's)`));
    if (waiting > 0) lines.push(this.#theme.muted(`(${waiting} more waiting)`));
    return new ChoiceDialog({
      theme: this.#theme,
      title: CONFIRM_TITLE,
      lines,
      choices: CHOICES.map(({ key, label, value }) => ({ key, label, value })),
      escape: "cancel",
      ...(this.#clock === undefined ? {} : { typeahead: this.#clock }),
      onChoose: (value) => this.#choose(question, isAnswer(value) ? value : "cancel"),
    });
  }
}

export function answerWords(choice: ConfirmAnswer): string {
  return ANSWER_WORDS[choice];
}
