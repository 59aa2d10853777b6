/**
 * A real tmux pane as a screen model, for what @xterm/headless cannot show:
 * how a "cursor-line" terminal (tmux 3.3; kitty, VTE and others reflow the
 * same way as far as the renderer cares, docs/tui.md) re-wraps the screen on
 * a resize. The pane runs `sleep`; bytes written to its tty are the pane's
 * output, as a program's would be. write() queues bytes; settle() resolves
 * once tmux has parsed them (an OSC 2 title marker written after them is
 * seen). screen() is the visible rows, cursor() the cursor, historySize()
 * the rows in its history, logicalLines(end) the logical lines (wrapped rows
 * joined) of the history and the screen rows above screen row `end`.
 * resize() resizes the window (tmux reflows). Widths are tmux's own wcwidth: ASCII and CJK agree with
 * Bun.stringWidth, emoji sequences may not. A private server (-L) per
 * screen; dispose() kills it. `available()` tells whether tmux is installed.
 */
import { closeSync, openSync, rmSync, writeSync } from "node:fs";

let nextId = 0;

export class TmuxScreen {
  readonly #socket: string;
  readonly #fd: number;
  #columns: number;
  #rows: number;
  #marker = 0;
  #disposed = false;

  static available(): boolean {
    return Bun.which("tmux") !== null;
  }

  constructor(columns: number, rows: number, history = 100_000) {
    this.#socket = `resize-prop-${process.pid}-${nextId++}`;
    this.#columns = columns;
    this.#rows = rows;
    this.#tmux(["-f", "/dev/null", "start-server", ";", "set", "-g", "history-limit", String(history), ";",
      "new-session", "-d", "-s", "p", "-x", String(columns), "-y", String(rows), "sleep 600"]);
    this.#tmux(["set", "-g", "status", "off"]);
    this.#fd = openSync(this.#display("#{pane_tty}"), "w");
  }

  get columns(): number {
    return this.#columns;
  }

  get rows(): number {
    return this.#rows;
  }

  write(data: string): void {
    writeSync(this.#fd, data);
  }

  async settle(): Promise<void> {
    const marker = `zot-mark-${++this.#marker}`;
    writeSync(this.#fd, `\x1b]2;${marker}\x07`);
    for (let i = 0; i < 2000; i++) {
      if (this.#display("#{pane_title}") === marker) return;
      await Bun.sleep(2);
    }
    throw new Error(`tmux did not parse the output (no ${marker})`);
  }

  resize(columns: number, rows: number): void {
    this.#tmux(["resize-window", "-t", "p", "-x", String(columns), "-y", String(rows)]);
    this.#columns = columns;
    this.#rows = rows;
  }

  screen(): string[] {
    const rows = this.#tmux(["capture-pane", "-p", "-t", "p"]).replace(/\n$/, "").split("\n");
    while (rows.length < this.#rows) rows.push("");
    return rows.map((row) => row.replace(/ +$/, ""));
  }

  cursor(): { row: number; col: number } {
    const [col, row] = this.#display("#{cursor_x},#{cursor_y}").split(",").map(Number);
    return { row: row!, col: col! };
  }

  historySize(): number {
    return Number(this.#display("#{history_size}"));
  }

  /** Logical lines of the history and the screen rows above screen row `end`. */
  logicalLines(end: number): string[] {
    if (end <= 0 && this.historySize() === 0) return [];
    const text = this.#tmux(["capture-pane", "-p", "-J", "-t", "p", "-S", "-", "-E", String(end - 1)]);
    return text.replace(/\n$/, "").split("\n");
  }

  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    closeSync(this.#fd);
    const socketPath = this.#display("#{socket_path}");
    Bun.spawnSync(["tmux", "-L", this.#socket, "kill-server"], { stdout: "ignore", stderr: "ignore" });
    rmSync(socketPath, { force: true }); // tmux leaves its socket file behind
  }

  #display(format: string): string {
    return this.#tmux(["display", "-p", "-t", "p", format]).trim();
  }

  #tmux(args: string[]): string {
    const result = Bun.spawnSync(["tmux", "-L", this.#socket, ...args], { stdout: "pipe", stderr: "pipe" });
    if (result.exitCode !== 0) throw new Error(`tmux ${args.join(" ")}: ${result.stderr.toString().trim()}`);
    return result.stdout.toString();
  }
}
