/**
 * The warm spare of a supervisor: at most one `zot swarm-child` started
 * before its task is known, so that a subagent call does not wait for a
 * whole zot start. The spare gets a `prepare` line (protocol.ts) at once:
 * by the time its task comes it has loaded its modules, connected to the
 * provider and loaded the provider's client, and waits on stdin. What
 * depends on the call (model, tools, system prompt, session, extensions
 * with their hello) is left to the task.
 *
 *  - ensure() starts a spare unless one is alive or the holder is closed;
 *  - take() hands the live spare to a task (the holder is then empty) or
 *    returns undefined (none, or it died while idle: then it is dropped);
 *  - close() retires the spare: SIGKILL to its group (a spare holds nothing:
 *    no session file, no extension yet) and waits for its exit; later
 *    ensure() calls do nothing.
 * A spare whose parent dies sees EOF on stdin and exits 0 without output
 * (modes/swarm-child.ts); common/process-tree.ts ends it at zot's exit.
 */
import { signalGroup } from "../common/process-tree.ts";
import { encodeLine, type SwarmPrepare } from "./protocol.ts";
import { childRunning, sendToChild, spawnSwarmChild, type SpawnedChild } from "./child.ts";

export interface WarmSpareOptions {
  readonly command: readonly string[];
  readonly cwd: string;
  readonly prepare: SwarmPrepare;
}

export class WarmSpare {
  readonly #options: WarmSpareOptions;
  #spare: SpawnedChild | undefined;
  #closed = false;

  constructor(options: WarmSpareOptions) {
    this.#options = options;
  }

  get ready(): boolean {
    return this.#spare !== undefined && childRunning(this.#spare.proc);
  }

  ensure(): void {
    if (this.#closed || this.ready) return;
    const spawned = spawnSwarmChild(this.#options.command, this.#options.cwd);
    // A spare that cannot start is no loss: the call starts its own child (and reports why).
    if ("error" in spawned) return;
    sendToChild(spawned.proc, encodeLine({ type: "prepare", ...this.#options.prepare }));
    this.#spare = spawned;
  }

  take(): SpawnedChild | undefined {
    const spare = this.#spare;
    this.#spare = undefined;
    return spare !== undefined && childRunning(spare.proc) ? spare : undefined;
  }

  async close(): Promise<void> {
    this.#closed = true;
    const spare = this.#spare;
    this.#spare = undefined;
    if (spare === undefined) return;
    signalGroup(spare.proc.pid, "SIGKILL");
    await spare.proc.exited;
  }
}
