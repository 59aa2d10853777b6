/**
 * The open overlays (dialogs, pickers, viewers), newest on top. Only the top
 * one is drawn and gets keys. open() puts one on top; close() removes one
 * (the top by default) and runs its onClose exactly once; closeAll() closes
 * every one, newest first (/clear, exit). handleKey routes a key to the top
 * overlay: true when it used the key (a "close" answer closes it), false
 * when it passed, closed and passed ("close-pass"), or there is none.
 */
import type { Key, Overlay } from "../../tui/index.ts";

export class OverlayStack {
  readonly #stack: Overlay[] = [];

  get top(): Overlay | undefined {
    return this.#stack.at(-1);
  }

  get size(): number {
    return this.#stack.length;
  }

  open(overlay: Overlay): void {
    this.#stack.push(overlay);
  }

  close(overlay: Overlay | undefined = this.top): void {
    if (overlay === undefined) return;
    const index = this.#stack.lastIndexOf(overlay);
    if (index === -1) return;
    this.#stack.splice(index, 1);
    overlay.onClose?.();
  }

  closeAll(): void {
    while (this.#stack.length > 0) this.close();
  }

  /** Whether `overlay` is still open (a dialog's caller checks before it acts). */
  has(overlay: Overlay): boolean {
    return this.#stack.includes(overlay);
  }

  handleKey(key: Key): boolean {
    const top = this.top;
    if (top === undefined) return false;
    const result = top.handleKey(key);
    if (result === "close" || result === "close-pass") this.close(top);
    return result === "handled" || result === "close";
  }
}
