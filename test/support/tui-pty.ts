/**
 * dist/zot in a real pseudo-terminal (Bun.Terminal) with a real terminal
 * emulator as the screen: `TuiPty.start()` spawns the compiled binary in a
 * clean environment (cleanEnv: own ZOT_HOME, no provider keys, TERM
 * xterm-256color) and feeds every byte it writes, in order, to an
 * XtermScreen; what the emulator answers to queries (DA1, cursor reports)
 * goes back to zot as a real terminal's would (`answer` adds answers to
 * queries the emulator ignores, such as OSC 11). It resolves once zot has
 * switched bracketed paste on (its editor is up), or throws with what the
 * screen showed.
 *
 * Input: `type` (literal text), `press` (named keys, e.g. "enter",
 * "escape", "ctrl+c", "alt+enter", "shift+tab", "up"), `paste` (bracketed
 * paste). `resize` settles the stream, resizes the emulator (it reflows
 * like a terminal window) and then the PTY (zot gets SIGWINCH), in that
 * order, as a real terminal does.
 * Waiting: `waitFor(check, what)` polls a condition on the parsed screen
 * (every byte received so far is parsed before each check) with a generous
 * bound (WAIT_MS), and fails naming `what` with the screen and the end of
 * the scrollback; `waitForText` is the common case. Nothing here sleeps a
 * fixed time to let zot "catch up".
 * Observation: `raw()` (every byte as text, escapes included), `counts()`
 * (bytes, CSI 2J, CSI 3J, synchronized-output frames), `onParsed` (called
 * after every chunk is parsed, to check invariants on every intermediate
 * screen), `timeline` (arrival time of every chunk).
 * Shutdown: `stop()` ends zot (SIGTERM, SIGKILL after a bound), awaits it,
 * closes the PTY and disposes the emulator; `stopAllTuis()` does it for every
 * session still open (call it in afterEach). Idempotent.
 */
import { cleanEnv, zotBinary } from "./binary.ts";
import { type ScreenCounts, XtermScreen } from "./xterm-screen.ts";

/** Bound for every wait: generous, the machine is shared and has 2 cores. */
export const WAIT_MS = 15_000;
/** Quiet time after zot exited that means its last write was read (exitCode). */
const EXIT_QUIET_MS = 50;
const POLL_MS = 15;

export interface TuiStartOptions {
  readonly home: string;
  readonly cwd: string;
  /** Arguments after the binary (provider flags included). */
  readonly args?: readonly string[];
  /** Extra environment (undefined removes a variable). */
  readonly env?: Record<string, string | undefined>;
  readonly columns?: number;
  readonly rows?: number;
  /** Emulator scrollback rows (default 10,000). */
  readonly scrollback?: number;
  /** Resolve start() once the raw output holds this (default: bracketed paste on). */
  readonly readyWhen?: (raw: string) => boolean;
  /** Answers queries the emulator does not (OSC 11): called with each chunk zot writes; a string returned is sent back at once. */
  readonly answer?: (chunk: string) => string | undefined;
}

const NAMED_KEYS: Readonly<Record<string, string>> = {
  enter: "\r",
  escape: "\x1b",
  tab: "\t",
  "shift+tab": "\x1b[Z",
  backspace: "\x7f",
  delete: "\x1b[3~",
  up: "\x1b[A",
  down: "\x1b[B",
  right: "\x1b[C",
  left: "\x1b[D",
  home: "\x1b[H",
  end: "\x1b[F",
  pageup: "\x1b[5~",
  pagedown: "\x1b[6~",
  "alt+enter": "\x1b\r",
  "alt+backspace": "\x1b\x7f",
  "ctrl+left": "\x1b[1;5D",
  "ctrl+right": "\x1b[1;5C",
  "alt+left": "\x1b[1;3D",
  "alt+right": "\x1b[1;3C",
};

/** The bytes a terminal sends for a named key: the names above, "ctrl+<letter>", "alt+<char>". */
export function keyBytes(name: string): string {
  const named = NAMED_KEYS[name];
  if (named !== undefined) return named;
  const ctrl = /^ctrl\+([a-z])$/.exec(name);
  if (ctrl?.[1] !== undefined) return String.fromCharCode(ctrl[1].charCodeAt(0) - 96);
  const alt = /^alt\+(.)$/u.exec(name);
  if (alt?.[1] !== undefined) return `\x1b${alt[1]}`;
  throw new Error(`tui-pty: no key named ${JSON.stringify(name)}`);
}

type Region = "screen" | "scrollback" | "all";

const open = new Set<TuiPty>();

export class TuiPty {
  readonly screen: XtermScreen;
  readonly proc: Bun.Subprocess;
  readonly terminal: Bun.Terminal;
  /** performance.now() just before the spawn. */
  readonly spawnedAt: number;
  /** Every chunk zot wrote: arrival time (performance.now()), size in bytes, length of raw() once it was added. */
  readonly timeline: { at: number; bytes: number; rawLength: number }[] = [];
  #raw = "";
  #lastWrite: Promise<void> = Promise.resolve();
  readonly #listeners = new Set<() => void>();
  #stopped = false;

  private constructor(binary: string, options: TuiStartOptions) {
    const columns = options.columns ?? 100;
    const rows = options.rows ?? 30;
    this.screen = new XtermScreen(columns, rows, options.scrollback ?? 10_000, { widths: "bun" });
    const decoder = new TextDecoder();
    this.terminal = new Bun.Terminal({
      cols: columns,
      rows,
      name: "xterm-256color",
      data: (_terminal, bytes) => {
        const chunk = bytes.slice();
        const at = performance.now();
        const text = decoder.decode(chunk, { stream: true });
        this.#raw += text;
        const reply = options.answer?.(text);
        if (reply !== undefined && !this.terminal.closed) this.terminal.write(reply);
        this.timeline.push({ at, bytes: chunk.byteLength, rawLength: this.#raw.length });
        this.#lastWrite = this.screen.write(chunk).then(() => {
          for (const listener of this.#listeners) listener();
        });
      },
    });
    this.screen.onReply((reply) => {
      if (!this.terminal.closed) this.terminal.write(reply);
    });
    this.spawnedAt = performance.now();
    this.proc = Bun.spawn([binary, ...(options.args ?? [])], {
      cwd: options.cwd,
      // The screen model is xterm.js, which reflows on resize the way VS Code's terminal does (docs/tui.md).
      env: cleanEnv(options.home, { TERM: "xterm-256color", ZOT_TUI_REFLOW: "xterm.js", ...options.env }),
      terminal: this.terminal,
    });
    open.add(this);
  }

  static async start(options: TuiStartOptions): Promise<TuiPty> {
    const tui = new TuiPty(await zotBinary(), options);
    const ready = options.readyWhen ?? ((raw: string) => raw.includes("\x1b[?2004h"));
    try {
      await tui.waitFor(() => ready(tui.#raw) || undefined, "zot to start (bracketed paste switched on)");
    } catch (error) {
      await tui.stop();
      throw error;
    }
    return tui;
  }

  get columns(): number {
    return this.screen.columns;
  }

  get rows(): number {
    return this.screen.rows;
  }

  /** Every byte zot wrote so far, as text (escape sequences included). */
  raw(): string {
    return this.#raw;
  }

  counts(): ScreenCounts {
    return this.screen.counts();
  }

  /** Literal text, as typed (no bracketed paste). */
  type(text: string): void {
    this.terminal.write(text);
  }

  press(...keys: string[]): void {
    this.terminal.write(keys.map(keyBytes).join(""));
  }

  paste(text: string): void {
    this.terminal.write(`\x1b[200~${text}\x1b[201~`);
  }

  /** Resolves once every byte received so far is parsed by the emulator. */
  async settle(): Promise<void> {
    let last: Promise<void>;
    do {
      last = this.#lastWrite;
      await last;
    } while (last !== this.#lastWrite);
  }

  /**
   * Resize the window: emulator first (reflow), then the PTY (SIGWINCH).
   * Bytes zot wrote before it saw the new size may still be parsed at the
   * new width, as in any terminal; so the resize happens right after a
   * chunk was parsed, when a next frame is furthest away.
   */
  async resize(columns: number, rows = this.rows): Promise<void> {
    await this.settle();
    this.screen.resize(columns, rows);
    this.terminal.resize(columns, rows);
    // Bun.Terminal.resize sets the PTY's size but the child gets no SIGWINCH (measured: `stty size`
    // in the child sees the new size, no handler runs), so it is sent by hand, as test/tui/terminal.test.ts does.
    if (this.proc.exitCode === null && this.proc.signalCode === null) this.proc.kill("SIGWINCH");
  }

  /** Calls `listener` after every chunk is parsed; returns the unsubscribe. */
  onParsed(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  rowsOf(region: Region): string[] {
    if (region === "screen") return this.screen.screen();
    if (region === "scrollback") return this.screen.scrollback();
    return this.screen.all();
  }

  /** Polls `check` on the settled screen until it returns a value other than undefined/false. */
  async waitFor<T>(check: () => T | undefined | false, what: string, timeoutMs = WAIT_MS): Promise<T> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      await this.settle();
      const value = check();
      if (value !== undefined && value !== false) return value;
      if (performance.now() > deadline) break;
      if (this.proc.exitCode !== null || this.proc.signalCode !== null) {
        // One more look after the last bytes are in.
        await Bun.sleep(POLL_MS);
        await this.settle();
        const last = check();
        if (last !== undefined && last !== false) return last;
        throw new Error(`zot exited (${this.proc.exitCode ?? this.proc.signalCode}) while waiting for ${what}\n${this.dump()}`);
      }
      await Bun.sleep(POLL_MS);
    }
    throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}\n${this.dump()}`);
  }

  /** Waits until a row of `region` contains `pattern` (a string or a RegExp); returns the row. */
  waitForText(pattern: string | RegExp, region: Region = "all", timeoutMs?: number): Promise<string> {
    const matches = (row: string): boolean => (typeof pattern === "string" ? row.includes(pattern) : pattern.test(row));
    return this.waitFor(() => this.rowsOf(region).find(matches), `${String(pattern)} in the ${region}`, timeoutMs);
  }

  /** The screen and the end of the scrollback, for failure messages. */
  dump(scrollbackRows = 40): string {
    const scrollback = this.screen.scrollback();
    const screen = this.screen.screen();
    const numbered = (rows: string[], from: number) => rows.map((row, i) => `${String(from + i).padStart(4)}|${row}`).join("\n");
    const shown = scrollback.slice(-scrollbackRows);
    return [
      `--- scrollback (${scrollback.length} rows, last ${shown.length}) ---`,
      numbered(shown, scrollback.length - shown.length),
      `--- screen ${this.columns}x${this.rows}, cursor ${JSON.stringify(this.screen.cursor())} ---`,
      numbered(screen, 0),
      "--- end ---",
    ].join("\n");
  }

  /**
   * The exit code once zot exits by itself (SIGKILL after `timeoutMs`), with
   * everything it wrote read: the child may exit before the PTY reader got
   * its last write (the PTY reports no EOF until it is closed), so this waits
   * for EXIT_QUIET_MS without new bytes (at most 2 s) before it settles.
   */
  async exitCode(timeoutMs = WAIT_MS): Promise<number> {
    const timer = setTimeout(() => this.proc.kill("SIGKILL"), timeoutMs);
    const code = await this.proc.exited;
    clearTimeout(timer);
    const until = performance.now() + 2_000;
    let seen: number;
    do {
      seen = this.#raw.length;
      await Bun.sleep(EXIT_QUIET_MS);
    } while (this.#raw.length !== seen && performance.now() < until);
    await this.settle();
    return code;
  }

  /** Ends zot (SIGTERM, then SIGKILL after 5 s), awaits it, closes the PTY, disposes the emulator. */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    open.delete(this);
    if (this.proc.exitCode === null && this.proc.signalCode === null) {
      this.proc.kill("SIGTERM");
      const timer = setTimeout(() => this.proc.kill("SIGKILL"), 5_000);
      await this.proc.exited;
      clearTimeout(timer);
    }
    await this.settle();
    this.#listeners.clear();
    this.terminal.close();
    this.screen.dispose();
  }
}

/** Stops every TuiPty still open (afterEach). */
export async function stopAllTuis(): Promise<void> {
  await Promise.all([...open].map((tui) => tui.stop()));
}

/** Rows of `rows` wider than `columns` cells (Bun.stringWidth), with their index. */
export function overwideRows(rows: readonly string[], columns: number): { index: number; width: number; row: string }[] {
  return rows.flatMap((row, index) => {
    const width = Bun.stringWidth(row);
    return width > columns ? [{ index, width, row }] : [];
  });
}
