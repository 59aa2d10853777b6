/**
 * The stdio McpTransport: one MCP server as a child process speaking
 * newline-delimited JSON-RPC on stdin/stdout (MCP "stdio" transport).
 * Spawned like an extension: its own process group (the whole tree is
 * signalled and reaped; the process-tree guard ends helpers that left the
 * group; Windows: no group, the tree is ended with taskkill, as
 * common/platform.ts does for extensions), env = zot's environment with the configured `env` merged over it,
 * cwd = the configured one (else zot's working directory; one that is not a
 * directory, or a command not found, fails start() naming it). Its stdout is
 * split by the LF line reader (common/line-reader.ts) with a cap of
 * MAX_MESSAGE_BYTES per line (a longer line ends the connection: the server
 * is stopped); each line is parsed with parseJson's depth bound; a line that
 * is not a JSON object is noted in the log and dropped. Its stderr is copied
 * into $ZOT_HOME/logs/mcp-<name>.log (0600, 1 MiB with one rotated `.1`
 * generation, common/log-file.ts, as for extension logs). `onClose` fires once, when the
 * process exits (with its exit code or signal in the reason) or its stdout
 * ends. `close()` closes stdin, waits CLOSE_GRACE_MS for an exit, then
 * SIGTERMs and finally SIGKILLs the group, and resolves once the server's
 * stderr has reached the log (at most CLOSE_GRACE_MS more); it is idempotent. The line
 * reader and the log writer are src/common's (shared with extensions).
 */
import { existsSync, statSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import type { Subprocess } from "bun";
import { oneLine, RateLimitedNotes } from "../common/rate-limited-notes.ts";
import { ZotError, errorMessage } from "../common/errors.ts";
import { describeJsonProblem, parseJson } from "../common/json.ts";
import { ownGroupSpawnOptions } from "../common/platform.ts";
import { signalGroup, superviseGroupLeader } from "../common/process-tree.ts";
import { LineReader } from "../common/line-reader.ts";
import { type LogFile, logFileFor } from "../common/log-file.ts";
import type { JsonRpcMessage, McpTransport } from "./transport.ts";

/** Longest line (one JSON-RPC message) accepted from a server's stdout. */
export const MAX_MESSAGE_BYTES = 4 * 1024 * 1024;
/** After stdin closes, how long a server may take to exit before SIGTERM (and again before SIGKILL). */
export const CLOSE_GRACE_MS = 500;
const STDERR_HIGH_WATER_BYTES = 256 * 1024;

export interface StdioServerOptions {
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
  readonly logPath: string;
}

type ServerProcess = Subprocess<"pipe", "pipe", "pipe">;
function resolveCommand(command: string, cwd: string, path: string | undefined): string | undefined {
  if (isAbsolute(command)) return existsSync(command) ? command : undefined;
  if (command.includes("/")) {
    const full = join(cwd, command);
    return existsSync(full) ? full : undefined;
  }
  return Bun.which(command, path === undefined ? {} : { PATH: path }) ?? undefined;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function exitDescription(proc: ServerProcess): string {
  if (proc.signalCode !== null) return `killed by ${proc.signalCode}`;
  return `exited with code ${proc.exitCode ?? "?"}`;
}

export class StdioTransport implements McpTransport {
  readonly #options: StdioServerOptions;
  readonly #log: LogFile;
  #proc: ServerProcess | undefined;
  #messageHandler: (message: JsonRpcMessage) => void = () => undefined;
  #closeHandler: (reason: string) => void = () => undefined;
  #closeReported = false;
  #stderrCopied: Promise<void> = Promise.resolve();
  #closing: Promise<void> | undefined;
  #writeChain: Promise<void> = Promise.resolve();

  /** Lines dropped from the server's stdout, logged at a bounded rate (a flood must not rotate the useful lines out). */
  readonly #dropped: RateLimitedNotes;

  constructor(options: StdioServerOptions) {
    this.#options = options;
    this.#log = logFileFor(options.logPath);
    this.#dropped = new RateLimitedNotes((line) => this.note(line), "dropped lines");
  }

  get pid(): number | undefined {
    return this.#proc?.pid;
  }

  note(text: string): void {
    this.#log.appendNote(`[zot] ${text}\n`);
  }

  onMessage(handler: (message: JsonRpcMessage) => void): void {
    this.#messageHandler = handler;
  }

  onClose(handler: (reason: string) => void): void {
    this.#closeHandler = handler;
  }

  async start(): Promise<void> {
    const { name, command, args, cwd } = this.#options;
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
    Object.assign(env, this.#options.env);
    if (!isDirectory(cwd)) throw new ZotError("mcp_spawn_failed", `mcp server ${name}: "cwd" ${cwd} is not a directory`, { server: name, cwd });
    const resolved = resolveCommand(command, cwd, env.PATH);
    if (resolved === undefined) throw new ZotError("mcp_spawn_failed", `mcp server ${name}: command "${command}" was not found`, { server: name, command });
    this.#log.appendNote(`\n[zot] starting mcp server ${name} (${[command, ...args].join(" ")}) at ${new Date().toISOString()}\n`);
    let proc: ServerProcess;
    try {
      proc = Bun.spawn([resolved, ...args], { cwd, env, stdin: "pipe", stdout: "pipe", stderr: "pipe", ...ownGroupSpawnOptions() });
    } catch (err) {
      throw new ZotError("mcp_spawn_failed", `mcp server ${name} could not start: ${errorMessage(err)}`, { server: name, command });
    }
    this.#proc = proc;
    // Its group is ended once it exits (before the handler below), and at zot's exit in any case.
    superviseGroupLeader(proc);
    void proc.exited.then(() => {
      this.#log.appendNote(`[zot] mcp server ${name} ${exitDescription(proc)}\n`);
      this.#reportClose(exitDescription(proc));
    });
    this.#stderrCopied = this.#pipeStderr(proc.stderr);
    void this.#readStdout(proc);
  }

  send(message: JsonRpcMessage): Promise<void> {
    const proc = this.#proc;
    if (proc === undefined || this.#closeReported) return Promise.reject(new ZotError("mcp_not_running", `mcp server ${this.#options.name} is not running`, { server: this.#options.name }));
    const line = `${JSON.stringify(message)}\n`;
    // One write at a time, in order; a broken pipe rejects this send only.
    const write = this.#writeChain.then(async () => {
      proc.stdin.write(line);
      await proc.stdin.flush();
    });
    this.#writeChain = write.catch(() => undefined);
    return write;
  }

  close(): Promise<void> {
    this.#closing ??= this.#stop();
    return this.#closing;
  }

  async #stop(): Promise<void> {
    const proc = this.#proc;
    if (proc === undefined) return;
    if (proc.exitCode === null && proc.signalCode === null) {
      // Queued messages (a notifications/cancelled) go first, then EOF; a server that stopped
      // reading could keep both waiting on a full pipe, so the whole grace is one bound.
      const deadline = performance.now() + CLOSE_GRACE_MS;
      const ended = this.#writeChain.then(() => proc.stdin.end()).catch(() => undefined);
      await Promise.race([ended, exitedWithin(proc, CLOSE_GRACE_MS)]);
      if (!(await exitedWithin(proc, Math.max(0, deadline - performance.now())))) {
        signalGroup(proc.pid, "SIGTERM");
        if (!(await exitedWithin(proc, CLOSE_GRACE_MS))) signalGroup(proc.pid, "SIGKILL");
        await exitedWithin(proc, CLOSE_GRACE_MS);
      }
    }
    signalGroup(proc.pid, "SIGKILL");
    this.#dropped.finish();
    this.#reportClose("closed by zot");
    // The server's last stderr reaches the log before close() resolves (bounded: a helper
    // that left the group may hold the pipe open).
    await resolvedWithin(this.#stderrCopied, CLOSE_GRACE_MS);
  }

  #reportClose(reason: string): void {
    if (this.#closeReported) return;
    this.#closeReported = true;
    try {
      this.#closeHandler(reason);
    } catch {
      // a close handler's failure must not take the transport down
    }
  }

  async #readStdout(proc: ServerProcess): Promise<void> {
    let overflowed = false;
    const reader = new LineReader(
      {
        line: (text) => this.#line(text),
        overflow: (bytes) => {
          overflowed = true;
          this.note(`a message of more than ${bytes} bytes exceeds the limit of ${MAX_MESSAGE_BYTES}; stopping the server`);
        },
      },
      MAX_MESSAGE_BYTES,
    );
    const stream = proc.stdout.getReader();
    try {
      for (;;) {
        const { value, done } = await stream.read();
        if (done) break;
        reader.push(value);
        if (overflowed) break;
      }
      reader.end();
    } catch {
      // the pipe broke
    } finally {
      stream.releaseLock();
    }
    if (overflowed) {
      this.#reportClose(`sent a message larger than ${MAX_MESSAGE_BYTES} bytes`);
      void this.close();
      return;
    }
    // stdout ended: the exit (with its code) usually follows at once.
    if (!(await exitedWithin(proc, CLOSE_GRACE_MS))) {
      this.#reportClose("closed its stdout");
      void this.close();
    }
  }

  #line(text: string): void {
    if (text.trim() === "") return;
    const parsed = parseJson(text);
    if (!parsed.ok) {
      this.#dropped.note(`dropped a line that is not JSON (${describeJsonProblem(parsed.problem)}): ${oneLine(text, 200)}`);
      return;
    }
    const value = parsed.value;
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      this.#dropped.note(`dropped a line that is not a JSON-RPC object: ${oneLine(text, 200)}`);
      return;
    }
    this.#messageHandler(value as JsonRpcMessage);
  }

  async #pipeStderr(stream: ReadableStream<Uint8Array>): Promise<void> {
    const reader = stream.getReader();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        this.#log.appendBytes(value);
        if (this.#log.pendingBytes >= STDERR_HIGH_WATER_BYTES) await this.#log.whenBelow(STDERR_HIGH_WATER_BYTES);
      }
    } catch {
      // the pipe broke
    } finally {
      reader.releaseLock();
    }
  }
}

async function resolvedWithin(promise: Promise<void>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([promise, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

async function exitedWithin(proc: ServerProcess, ms: number): Promise<boolean> {
  if (proc.exitCode !== null || proc.signalCode !== null) return true;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  const result = await Promise.race([proc.exited.then(() => true as const), timeout]);
  clearTimeout(timer);
  return result;
}
