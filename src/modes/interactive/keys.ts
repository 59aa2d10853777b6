/**
 * Decodes raw terminal input (raw mode, UTF-8 text) into key events. One
 * KeyDecoder per input stream: it keeps bracketed pastes that span chunks and
 * escape sequences cut at a chunk end. Printable runs become one `text`
 * event; a lone ESC at the end of a chunk is the Escape key. Unknown
 * sequences become `unknown` (callers ignore them). Pure: no I/O.
 */

export type KeyName =
  | "enter"
  | "newline"
  | "backspace"
  | "delete"
  | "left"
  | "right"
  | "up"
  | "down"
  | "home"
  | "end"
  | "pageup"
  | "pagedown"
  | "tab"
  | "escape"
  | "word-left"
  | "word-right"
  | "delete-word"
  | `ctrl+${string}`
  | "unknown";

export type KeyEvent =
  | { readonly kind: "key"; readonly name: KeyName }
  | { readonly kind: "text"; readonly text: string }
  | { readonly kind: "paste"; readonly text: string };

const PASTE_START = "\x1b[200~";
const PASTE_END = "\x1b[201~";

const CSI_FINAL: Readonly<Record<string, KeyName>> = {
  A: "up",
  B: "down",
  C: "right",
  D: "left",
  H: "home",
  F: "end",
};

const CSI_TILDE: Readonly<Record<string, KeyName>> = {
  "1": "home",
  "7": "home",
  "4": "end",
  "8": "end",
  "3": "delete",
  "5": "pageup",
  "6": "pagedown",
};

function key(name: KeyName): KeyEvent {
  return { kind: "key", name };
}

/** A CSI sequence's key: params like "1;5" carry modifiers (3 = Alt, 5 = Ctrl) that turn ←/→ into word moves. */
function csiKey(params: string, final: string): KeyName {
  if (final === "~") return CSI_TILDE[params.split(";")[0] ?? ""] ?? "unknown";
  const name = CSI_FINAL[final];
  if (name === undefined) return "unknown";
  const modifier = params.split(";")[1];
  if (modifier !== undefined && modifier !== "1" && (name === "left" || name === "right")) {
    return name === "left" ? "word-left" : "word-right";
  }
  return name;
}

function controlKey(code: number): KeyName | undefined {
  if (code === 0x0d) return "enter";
  if (code === 0x0a) return "newline";
  if (code === 0x09) return "tab";
  if (code === 0x7f || code === 0x08) return "backspace";
  if (code >= 0x01 && code <= 0x1a) return `ctrl+${String.fromCharCode(code + 0x60)}`;
  return undefined;
}

export class KeyDecoder {
  #pending = "";
  #paste: string | undefined;

  push(chunk: string): KeyEvent[] {
    const events: KeyEvent[] = [];
    const input = this.#pending + chunk;
    this.#pending = "";
    let text = "";
    const flushText = (): void => {
      if (text !== "") events.push({ kind: "text", text });
      text = "";
    };
    let i = 0;
    while (i < input.length) {
      if (this.#paste !== undefined) {
        const end = input.indexOf(PASTE_END, i);
        if (end < 0) {
          // Keep a possible partial end marker for the next chunk.
          const keep = partialSuffix(input, PASTE_END);
          this.#paste += input.slice(i, input.length - keep);
          this.#pending = input.slice(input.length - keep);
          return events;
        }
        events.push({ kind: "paste", text: this.#paste + input.slice(i, end) });
        this.#paste = undefined;
        i = end + PASTE_END.length;
        continue;
      }
      const ch = input[i] as string;
      if (ch === "\x1b") {
        flushText();
        if (input.startsWith(PASTE_START, i)) {
          this.#paste = "";
          i += PASTE_START.length;
          continue;
        }
        const parsed = this.#escape(input, i);
        if (parsed === undefined) {
          this.#pending = input.slice(i);
          return events;
        }
        events.push(parsed.event);
        i = parsed.next;
        continue;
      }
      const code = ch.charCodeAt(0);
      if (code < 0x20 || code === 0x7f) {
        flushText();
        const name = controlKey(code);
        if (name !== undefined) events.push(key(name));
        i += 1;
        continue;
      }
      text += ch;
      i += 1;
    }
    flushText();
    return events;
  }

  /** The event starting at input[at] (an ESC), or undefined when the sequence is cut off at the chunk end. */
  #escape(input: string, at: number): { event: KeyEvent; next: number } | undefined {
    const next = input[at + 1];
    if (next === undefined) return { event: key("escape"), next: at + 1 };
    if (next === "[") {
      const match = /^([0-9;]*)([@-~])/.exec(input.slice(at + 2));
      if (match === null) return input.length - at < 16 && /^[0-9;]*$/.test(input.slice(at + 2)) ? undefined : { event: key("unknown"), next: at + 2 };
      return { event: key(csiKey(match[1] ?? "", match[2] ?? "")), next: at + 2 + match[0].length };
    }
    if (next === "O") {
      const final = input[at + 2];
      if (final === undefined) return undefined;
      return { event: key(CSI_FINAL[final] ?? "unknown"), next: at + 3 };
    }
    if (next === "\r" || next === "\n") return { event: key("newline"), next: at + 2 };
    if (next === "\x7f" || next === "\b") return { event: key("delete-word"), next: at + 2 };
    if (next === "b") return { event: key("word-left"), next: at + 2 };
    if (next === "f") return { event: key("word-right"), next: at + 2 };
    if (next === "\x1b") return { event: key("escape"), next: at + 1 };
    return { event: key("unknown"), next: at + 2 };
  }
}

/** Length of the longest suffix of text that is a proper prefix of marker. */
function partialSuffix(text: string, marker: string): number {
  for (let length = Math.min(marker.length - 1, text.length); length > 0; length--) {
    if (marker.startsWith(text.slice(text.length - length))) return length;
  }
  return 0;
}
