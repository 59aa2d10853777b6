/**
 * How the conversation appears on screen. Agent events come in through
 * event(): assistant text is collected while it streams (the live region
 * shows its tail, streamLines()) and printed as markdown (Bun.markdown.ansi)
 * once the message is complete; text the agent never delivered (a hidden
 * message) is dropped, the partial text of an aborted stream is printed
 * plainly. Each tool call is one dim line `● name  preview`; its result is a
 * short summary (first lines, the bash `[exit N]` line), red when it failed.
 * A provider retry is a yellow `retrying in 4 s (retry 1 of 5): 429 rate limited` line.
 * Outcomes, notes and the status line are printed by the app through the
 * helpers here. Everything goes through the Screen (which sanitizes what it
 * writes); the streamed deltas are sanitized on arrival by a streaming
 * sanitizer, so an escape sequence split across two deltas is still removed
 * whole and the collected text never holds half of one.
 */
import type { AgentEvent } from "../../agent/events.ts";
import { toolPreview } from "../../agent/permissions.ts";
import { TerminalTextSanitizer, sanitizeTerminalText } from "../../common/terminal-text.ts";
import type { Usage } from "../../providers/types.ts";
import { fitWidth, type Screen } from "./screen.ts";
import type { Style } from "./style.ts";

const RESULT_PREVIEW_LINES = 3;

function argsRecord(args: unknown): Readonly<Record<string, unknown>> {
  return typeof args === "object" && args !== null && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, " ⏎ ").trim();
}

/** Tool output as plain text: no colours or control characters of its own. */
function printable(text: string): string {
  return Bun.stripANSI(text).replace(/\t/g, "    ").replace(/[\x00-\x1f\x7f]/g, "");
}

function formatCount(value: number): string {
  return value >= 10_000 ? `${(value / 1000).toFixed(1)}k` : String(value);
}

/** `provider/model · tokens 1.2k in, 300 out · $0.0123`: the status line after a prompt (session totals). */
export function statusText(provider: string, model: string, usage: Usage): string {
  const cached = usage.cache_read_tokens + usage.cache_write_tokens;
  const tokens = `tokens ${formatCount(usage.input_tokens)} in, ${formatCount(usage.output_tokens)} out${cached > 0 ? `, ${formatCount(cached)} cached` : ""}`;
  return `${provider}/${model} · ${tokens} · $${usage.cost_usd.toFixed(4)}`;
}

export class Transcript {
  readonly #screen: Screen;
  readonly #style: Style;
  #stream = "";
  readonly #streamSanitizer = new TerminalTextSanitizer();

  constructor(screen: Screen, style: Style) {
    this.#screen = screen;
    this.#style = style;
  }

  event(event: AgentEvent): void {
    switch (event.type) {
      case "assistant_start":
        this.#stream = "";
        this.#streamSanitizer.reset();
        return;
      case "text_delta":
        this.#stream += this.#streamSanitizer.push(event.delta);
        this.#screen.refresh();
        return;
      case "assistant_message": {
        this.#stream = "";
        const text = event.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("\n");
        if (text.trim() !== "") this.markdown(text);
        else this.#screen.refresh();
        return;
      }
      case "tool_call":
        this.#toolCall(event.name, event.args);
        return;
      case "tool_result":
        this.#toolResult(event);
        return;
      case "retry":
        this.warn(event.message);
        return;
      case "turn_end":
        if (event.stop === "aborted" && this.#stream.trim() !== "") this.#screen.print(this.#stream);
        this.#stream = "";
        this.#screen.refresh();
        return;
      default:
    }
  }

  /** The tail of the text still streaming, wrapped to the width (at most maxRows rows). */
  streamLines(width: number, maxRows: number): string[] {
    if (this.#stream === "") return [];
    const lines = fitWidth(this.#stream, width - 1);
    return lines.slice(Math.max(0, lines.length - maxRows));
  }

  markdown(text: string): void {
    const width = this.#screen.width;
    // The renderer drops a bare ESC but prints the rest of a sequence ("[2J") as text: remove sequences first.
    const source = Bun.stripANSI(sanitizeTerminalText(text));
    const rendered = Bun.markdown.ansi(source, { colors: this.#style.color, columns: Math.max(20, width - 1) });
    this.#screen.print(rendered.replace(/\n+$/, ""));
  }

  user(text: string, via?: string): void {
    const prefix = this.#style.bold(this.#style.cyan("›"));
    const tag = via === undefined ? "" : this.#style.dim(`  [${via}]`);
    this.#screen.print(`\n${prefix} ${this.#style.bold(text.replace(/\n/g, "\n  "))}${tag}`);
  }

  info(text: string): void {
    this.#screen.print(this.#style.dim(text));
  }

  plain(text: string): void {
    this.#screen.print(text);
  }

  success(text: string): void {
    this.#screen.print(this.#style.green(text));
  }

  warn(text: string): void {
    this.#screen.print(this.#style.yellow(text));
  }

  error(text: string): void {
    this.#screen.print(this.#style.red(text));
  }

  /** A one-shot extension note in the transcript (the `display` action). */
  display(extension: string, text: string): void {
    this.#screen.print(`${this.#style.magenta(`[${extension}]`)} ${text}`);
  }

  status(provider: string, model: string, usage: Usage): void {
    this.#screen.print(this.#style.dim(statusText(provider, model, usage)));
  }

  #toolCall(name: string, args: unknown): void {
    const preview = typeof args === "string" ? args : toolPreview(argsRecord(args));
    this.#screen.print(this.#style.dim(`● ${name}  ${printable(oneLine(preview))}`));
  }

  #toolResult(event: Extract<AgentEvent, { type: "tool_result" }>): void {
    const text = event.content.flatMap((block) => (block.type === "text" ? [block.text] : ["[image]"])).join("\n");
    const lines = text.split("\n").map(printable).filter((line) => line.trim() !== "");
    if (lines[0]?.startsWith("$ ")) lines.shift();
    const last = lines.at(-1);
    const trailer = last !== undefined && /^\[(exit|timed out|cancelled)/.test(last) ? lines.pop() : undefined;
    const shown = lines.slice(0, RESULT_PREVIEW_LINES);
    if (lines.length > shown.length) shown.push(`… ${lines.length - shown.length} more line(s)`);
    if (trailer !== undefined) shown.push(trailer);
    if (shown.length === 0) shown.push("(no output)");
    const maxCols = Math.max(10, this.#screen.width - 5);
    const body = shown
      .map((line, index) => `${index === 0 ? "  ⎿ " : "    "}${Bun.stringWidth(line) > maxCols ? `${Bun.sliceAnsi(line, 0, maxCols - 1)}…` : line}`)
      .join("\n");
    this.#screen.print(event.is_error ? this.#style.red(body) : this.#style.dim(body));
  }
}
