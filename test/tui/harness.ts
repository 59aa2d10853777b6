/**
 * A Renderer wired to an XtermScreen (widths as Bun measures them; scrollback
 * 100,000 rows unless told): the
 * view is set by the test, every write is recorded and fed to the screen.
 * settle() waits until the screen has parsed everything written.
 */
import { Renderer, type RendererOptions } from "../../src/tui/renderer.ts";
import type { LiveView } from "../../src/tui/types.ts";
import { XtermScreen } from "../support/xterm-screen.ts";

export class RendererHarness {
  readonly screen: XtermScreen;
  readonly renderer: Renderer;
  readonly writes: string[] = [];
  view: LiveView = { lines: [] };
  /** renderLive calls, with the size they were given. */
  readonly renders: Array<{ width: number; height: number }> = [];
  #parsed: Promise<void> = Promise.resolve();

  constructor(columns: number, rows: number, options: RendererOptions & { scrollback?: number } = {}) {
    this.screen = new XtermScreen(columns, rows, options.scrollback ?? 100_000, { widths: "bun" });
    const screen = this.screen;
    this.renderer = new Renderer(
      {
        reflow: "xterm.js",
        get size() {
          return { columns: screen.columns, rows: screen.rows };
        },
        write: (data) => {
          this.writes.push(data);
          this.#parsed = screen.write(data);
        },
      },
      {
        renderLive: (width, height) => {
          this.renders.push({ width, height });
          return this.view;
        },
      },
      options,
    );
  }

  /** Sets the view and draws it now. */
  async show(view: LiveView): Promise<void> {
    this.view = view;
    this.renderer.flush();
    await this.settle();
  }

  async settle(): Promise<void> {
    await this.#parsed;
  }

  /** Resizes the emulator (it reflows) and tells the renderer. */
  async resize(columns: number, rows: number): Promise<void> {
    this.screen.resize(columns, rows);
    this.renderer.resize();
    await this.settle();
  }

  /** Screen rows with trailing empty rows removed. */
  screenText(): string[] {
    return trimTrailingEmpty(this.screen.screen());
  }

  dispose(): void {
    this.renderer.stop();
    this.screen.dispose();
  }
}

export function trimTrailingEmpty(rows: readonly string[]): string[] {
  let end = rows.length;
  while (end > 0 && rows[end - 1] === "") end -= 1;
  return rows.slice(0, end);
}

/** What a prepared line looks like on screen: colours gone, trailing spaces trimmed. */
export function plain(line: string): string {
  return Bun.stripANSI(line).trimEnd();
}
