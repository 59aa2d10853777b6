/**
 * The --no-yolo confirmation as a one-line question above the editor:
 * `Allow bash "npm test"? [y]es / [a]lways this tool / [A]ll / [n]o`.
 * Requests queue (one question at a time, `(N more)` when several wait).
 * Keys: y → once, a → always_tool, A → always_all, n → deny, Esc → cancel;
 * other keys are ignored while a question is open. A request whose signal
 * aborts (turn cancelled, /yolo) leaves the queue and answers "cancel".
 */
import type { ConfirmAnswer, ConfirmRequest, Confirmer } from "../../agent/permissions.ts";
import type { Key, Theme } from "../../tui/index.ts";

interface PendingQuestion {
  readonly request: ConfirmRequest;
  readonly answer: (choice: ConfirmAnswer) => void;
}

const ANSWER_KEYS: Readonly<Record<string, ConfirmAnswer>> = {
  y: "once",
  Y: "once",
  a: "always_tool",
  A: "always_all",
  n: "deny",
  N: "deny",
};

const ANSWER_WORDS: Readonly<Record<ConfirmAnswer, string>> = {
  once: "allowed once",
  always_tool: "allowed (always for this tool)",
  always_all: "allowed (always, every tool)",
  deny: "denied",
  cancel: "cancelled",
};

export class ConfirmQuestion implements Confirmer {
  readonly #queue: PendingQuestion[] = [];
  readonly #changed: () => void;
  readonly #answered: (request: ConfirmRequest, choice: ConfirmAnswer) => void;

  constructor(changed: () => void, answered: (request: ConfirmRequest, choice: ConfirmAnswer) => void) {
    this.#changed = changed;
    this.#answered = answered;
  }

  get open(): boolean {
    return this.#queue.length > 0;
  }

  confirm(request: ConfirmRequest): Promise<ConfirmAnswer> {
    return new Promise<ConfirmAnswer>((resolve) => {
      if (request.signal.aborted) {
        resolve("cancel");
        return;
      }
      const question: PendingQuestion = {
        request,
        answer: (choice) => {
          const index = this.#queue.indexOf(question);
          if (index < 0) return;
          this.#queue.splice(index, 1);
          request.signal.removeEventListener("abort", onAbort);
          this.#changed();
          resolve(choice);
        },
      };
      const onAbort = (): void => question.answer("cancel");
      request.signal.addEventListener("abort", onAbort, { once: true });
      this.#queue.push(question);
      this.#changed();
    });
  }

  /** Takes the key when a question is open; true when it was consumed. */
  handleKey(key: Key): boolean {
    const current = this.#queue[0];
    if (current === undefined) return false;
    let choice: ConfirmAnswer | undefined;
    if (key.kind === "text") choice = ANSWER_KEYS[key.text.slice(0, 1)];
    else if (key.kind === "key" && key.name === "escape") choice = "cancel";
    if (choice !== undefined) {
      this.#answered(current.request, choice);
      current.answer(choice);
    }
    return true;
  }

  /** The question line for the live region, or undefined when none is open. */
  line(theme: Theme): string | undefined {
    const current = this.#queue[0];
    if (current === undefined) return undefined;
    const more = this.#queue.length > 1 ? theme.muted(` (${this.#queue.length - 1} more)`) : "";
    const { toolName, preview } = current.request;
    return `${theme.warning(`Allow ${toolName} ${JSON.stringify(preview)}?`)} [y]es / [a]lways this tool / [A]ll / [n]o${more}`;
  }
}

export function answerWords(choice: ConfirmAnswer): string {
  return ANSWER_WORDS[choice];
}
