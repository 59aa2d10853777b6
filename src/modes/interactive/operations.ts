/**
 * The interactive session's operation runner: at most one operation runs at
 * a time (a model prompt, an extension command, /compact, /reload-ext).
 * submit() starts an input now, or queues it while one runs (the queue is
 * shown as chips; next() starts the oldest once the running one ended).
 * run() starts an operation: it gets an AbortSignal, a throw is printed as
 * `zot: …` in the chat, and while any runs a ticker samples the streamed
 * characters (the status bar's estimate) and asks for a frame every TICK_MS.
 * cancel() aborts the running one and drops the queue (said in the chat);
 * stop() does so silently and waits, bounded, for it to wind down (exit).
 * What an input becomes (prompt, builtin, extension command, unknown) is the
 * `dispatch` callback's business (dispatch.ts), not the runner's.
 */
import { errorMessage } from "../../common/errors.ts";

const TICK_MS = 100;

export interface QueuedInput {
  readonly text: string;
  /** A model prompt as is (extension `submit`), never parsed as a command. */
  readonly promptOnly: boolean;
  /** user_prompt_submit (queued) was already sent. */
  readonly announced: boolean;
  readonly via?: string;
  /** Already waited for starting extensions once (an unknown /name is then reported). */
  readonly waited?: boolean;
}

/** The running operation: what it is and since when. */
export interface ActiveOperation {
  readonly label: string;
  /** A model prompt (or an extension command that may prompt): the status bar shows the chat's activity. */
  readonly prompt: boolean;
  readonly since: number;
}

interface Operation extends ActiveOperation {
  readonly controller: AbortController;
  done: Promise<void>;
}

export interface OperationRunnerOptions {
  /** Starts `input` (it calls run(), or reports and calls next()). */
  readonly dispatch: (input: QueuedInput) => void;
  readonly frame: () => void;
  /** Prints a line in the chat (a throw, the dropped queue). */
  readonly error: (text: string) => void;
  readonly warn: (text: string) => void;
  /** Characters streamed so far in the current response (sampled at each tick). */
  readonly streamedChars: () => number;
  /** The app is leaving: nothing more starts. */
  readonly stopped: () => boolean;
}

export class OperationRunner {
  readonly queue: QueuedInput[] = [];
  /** The streamed characters the status bar's estimate shows, sampled at the tick so the bar is not redrawn per delta. */
  streamedCharsShown = 0;
  readonly #options: OperationRunnerOptions;
  #active: Operation | undefined;
  #ticker: Timer | undefined;

  constructor(options: OperationRunnerOptions) {
    this.#options = options;
  }

  get active(): ActiveOperation | undefined {
    return this.#active;
  }

  get busy(): boolean {
    return this.#active !== undefined;
  }

  /** How many of an extension's `submit`s wait in the queue. */
  queuedSubmits(extension: string): number {
    let count = 0;
    for (const input of this.queue) if (input.promptOnly && input.via === extension) count++;
    return count;
  }

  /** Starts `input` now, or queues it behind the running operation. */
  submit(input: QueuedInput): void {
    if (this.busy) this.queue.push(input);
    else this.#options.dispatch(input);
  }

  run(label: string, prompt: boolean, task: (signal: AbortSignal) => Promise<void>): void {
    const operation: Operation = { label, prompt, since: Date.now(), controller: new AbortController(), done: Promise.resolve() };
    this.#active = operation;
    this.#ticker ??= setInterval(() => {
      this.streamedCharsShown = this.#options.streamedChars();
      this.#options.frame();
    }, TICK_MS);
    this.streamedCharsShown = 0;
    this.#options.frame();
    operation.done = (async () => {
      try {
        await task(operation.controller.signal);
      } catch (err) {
        this.#options.error(`zot: ${errorMessage(err)}`);
      } finally {
        if (this.#active === operation) this.#active = undefined;
        if (this.#active === undefined) this.#stopTicker();
        this.#options.frame();
        this.next();
      }
    })();
  }

  /** Starts the oldest queued input when nothing runs. */
  next(): void {
    if (this.#options.stopped() || this.#active !== undefined) return;
    const queued = this.queue.shift();
    if (queued !== undefined) this.#options.dispatch(queued);
  }

  /** Stops the running operation (Esc, Ctrl+C); queued prompts are dropped. False when nothing runs. */
  cancel(): boolean {
    if (this.#active === undefined) return false;
    this.#active.controller.abort();
    if (this.queue.length > 0) this.#options.warn(`dropped ${this.queue.length} queued prompt(s)`);
    this.queue.length = 0;
    return true;
  }

  /** Drops the queue, aborts the running operation and waits up to `waitMs` for it to end. */
  async stop(waitMs: number): Promise<void> {
    this.queue.length = 0;
    this.#stopTicker();
    const active = this.#active;
    if (active === undefined) return;
    active.controller.abort();
    let timer: Timer | undefined;
    await Promise.race([active.done, new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)))]);
    clearTimeout(timer);
  }

  #stopTicker(): void {
    clearInterval(this.#ticker);
    this.#ticker = undefined;
  }
}
