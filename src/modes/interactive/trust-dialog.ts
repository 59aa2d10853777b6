/**
 * The project-trust question on the chat screen (docs/extensions.md
 * "Project trust"): a ChoiceDialog overlay titled `run this project's
 * extensions?` listing what would run (name, exec, language, what changed
 * since the last decision; for ./.zot/mcp.json the names of its servers,
 * mcp-server-names.ts) with the answers
 * `[t] trust (remember)  [o] this time only  [n] do not run`.
 * Esc (or the overlay closed by /clear) answers "dismiss": nothing starts,
 * nothing is recorded. Setup may ask before the screen exists: questions
 * wait until attach(). After the answer a transcript line says what
 * happened (global extensions start either way: the gate covers the
 * project's own only). An answer less than TYPEAHEAD_QUIET_MS after a typed
 * key is ignored (key-clock.ts), and one less than EARLY_ANSWER_MS after
 * the question opened waits for a quiet moment first (early-answer.ts): the
 * first letter of a prompt typed as the screen came up must not trust the
 * project.
 */
import { displayText, ChoiceDialog, type KeyClock, type Overlay, type Theme } from "../../tui/index.ts";
import { describeChanges, itemTrustState, mcpConfigFile, type ProjectTrustStatus } from "../../trust/index.ts";
import { notStartedText, type TrustChoice } from "../project-trust.ts";
import { EarlyAnswerGuard } from "./early-answer.ts";
import { describeMcpServerNames, readMcpServerNames } from "./mcp-server-names.ts";

export const TRUST_TITLE = "run this project's extensions?";

export interface TrustDialogHost {
  readonly theme: Theme;
  /** Answers typed in a burst (meant for the prompt) are ignored (key-clock.ts). */
  readonly keyClock: KeyClock;
  openOverlay(overlay: Overlay): void;
  closeOverlay(overlay: Overlay): void;
  readonly chat: { info(text: string): void; success(text: string): void; warn(text: string): void };
}

interface Question {
  readonly status: ProjectTrustStatus;
  readonly answer: (choice: TrustChoice) => void;
}

const CHOICES = [
  { key: "t", label: "trust (remember)", value: "trust" },
  { key: "o", label: "this time only", value: "once" },
  { key: "n", label: "do not run", value: "skip" },
] as const;

function isChoice(value: string): value is TrustChoice {
  return value === "trust" || value === "once" || value === "skip" || value === "dismiss";
}

export function trustDialogLines(status: ProjectTrustStatus, theme: Theme): string[] {
  const when = status.entry?.at.slice(0, 10) ?? "?";
  const head = status.state === "changed"
    ? `${status.dir} changed since it was ${status.entry?.decision ?? "trusted"} on ${when}: ${describeChanges(status.changes) || "contents differ"}`
    : `${status.dir} is not trusted yet. Its own programs would run with your privileges:`;
  const lines = [displayText(head)];
  for (const item of status.current.items) {
    const state = itemTrustState(status, item.name);
    const mark = state === "changed" ? theme.warning(status.changes.added.includes(item.name) ? "  [new]" : "  [changed]") : "";
    const what =
      item.kind === "mcp"
        ? `MCP servers: ${describeMcpServerNames(readMcpServerNames(mcpConfigFile(status.dir)))}`
        : `${displayText(item.exec)}  ${theme.muted(`(${displayText(item.language)})`)}`;
    lines.push(`  ${theme.accent(displayText(item.name))}  ${what}${mark}`);
  }
  lines.push(theme.muted("(global extensions and --ext paths do not depend on this answer)"));
  return lines;
}

export class TrustPrompt {
  readonly #waiting: Question[] = [];
  #host: TrustDialogHost | undefined;
  #open = false;

  /** For ProjectTrust's `ask`: resolves with the user's answer. */
  readonly ask = (status: ProjectTrustStatus): Promise<TrustChoice> =>
    new Promise<TrustChoice>((resolve) => {
      this.#waiting.push({ status, answer: resolve });
      this.#next();
    });

  /** For ProjectTrust's `note`. */
  readonly note = (text: string): void => {
    if (this.#host === undefined) this.#notes.push(text);
    else this.#host.chat.info(text);
  };

  readonly #notes: string[] = [];

  attach(host: TrustDialogHost): void {
    this.#host = host;
    for (const text of this.#notes.splice(0)) host.chat.info(text);
    this.#next();
  }

  #next(): void {
    const host = this.#host;
    const question = this.#waiting[0];
    if (host === undefined || question === undefined || this.#open) return;
    this.#open = true;
    let answered = false;
    const finish = (choice: TrustChoice): void => {
      if (answered) return;
      answered = true;
      this.#waiting.shift();
      this.#open = false;
      this.#report(host, question.status, choice);
      question.answer(choice);
      this.#next();
    };
    const dialog = new ChoiceDialog({
      theme: host.theme,
      title: TRUST_TITLE,
      lines: trustDialogLines(question.status, host.theme),
      choices: CHOICES,
      escape: "dismiss",
      typeahead: host.keyClock,
      onChoose: (value) => finish(isChoice(value) ? value : "dismiss"),
      onClose: () => finish("dismiss"),
    });
    host.openOverlay(new EarlyAnswerGuard(dialog, { answerKeys: CHOICES.map((choice) => choice.key), close: (overlay) => host.closeOverlay(overlay) }));
  }

  #report(host: TrustDialogHost, status: ProjectTrustStatus, choice: TrustChoice): void {
    const names = status.current.items.map((item) => item.name).join(", ");
    if (choice === "trust") host.chat.success(`trusted ${status.dir}: starting ${names}`);
    else if (choice === "once") host.chat.info(`starting ${names} for this run only (not recorded)`);
    else {
      const recorded = choice === "skip" ? " (recorded: not asked again until they change)" : "";
      host.chat.info(`${notStartedText(status.current.items)}${recorded}; 'zot trust' or --trust allows them`);
    }
  }
}
