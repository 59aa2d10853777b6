/**
 * The key-order check of `zot ext test`: the spec promises a panel its
 * panel_key frames in order, and an extension that handles them
 * concurrently scrambles fast typing. The harness types KEY_BURST as rune
 * keys in one write and watches the panel_render frames of that panel that
 * follow. Meaningful only for panels that echo typed text: a render showing
 * KEY_BURST passes, a render showing a reordering of it (all its letters,
 * contiguous, another order) fails, and a panel that never shows the letters
 * is skipped with a note. Keeps no frames: each render is scanned once as it
 * arrives (O(length)), so memory stays bounded whatever the panel sends.
 */
import type { InboundOf } from "../frames.ts";

/** The runes typed in one burst: distinct letters, without "q" (a common close key). */
export const KEY_BURST = "abcdefghijklmnoprstuvwxyz";

export type KeyOrderVerdict = { readonly status: "pass" | "fail" | "skip"; readonly detail: string };

export class KeyOrderWatch {
  private renders = 0;
  private inOrder = false;
  private scrambled: string | undefined;

  constructor(readonly panelId: string) {}

  observe(frame: InboundOf<"panel_render">): void {
    if (frame.panel_id !== this.panelId) return;
    this.renders++;
    const text = [frame.title ?? "", ...frame.lines, frame.footer ?? ""].join("\n");
    if (text.includes(KEY_BURST)) this.inOrder = true;
    else this.scrambled ??= findReordering(text);
  }

  verdict(): KeyOrderVerdict {
    const typed = `typed "${KEY_BURST}" as ${KEY_BURST.length} rune keys in one burst`;
    if (this.scrambled !== undefined) {
      return { status: "fail", detail: `${typed}; the panel showed "${this.scrambled}": keys were handled out of order (handle panel_key frames one at a time, in arrival order)` };
    }
    if (this.inOrder) return { status: "pass", detail: `${typed}; the panel echoed them in order` };
    if (this.renders === 0) return { status: "skip", detail: `${typed}; no panel_render followed, so key order is not checked (it is for panels that echo typed text)` };
    return { status: "skip", detail: `${typed}; the panel does not echo typed text (${this.renders} render(s), none shows the letters), so key order is not checked` };
  }
}

/** The first run of text that holds every letter of KEY_BURST once, contiguous, in another order. */
export function findReordering(text: string): string | undefined {
  const length = KEY_BURST.length;
  const lastSeen = new Map<string, number>();
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (!KEY_BURST.includes(char)) {
      start = i + 1;
      continue;
    }
    const previous = lastSeen.get(char);
    if (previous !== undefined && previous >= start) start = previous + 1;
    lastSeen.set(char, i);
    if (i - start + 1 === length) {
      const run = text.slice(start, i + 1);
      if (run !== KEY_BURST) return run;
      start++;
    }
  }
  return undefined;
}
