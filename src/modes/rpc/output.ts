/**
 * The RPC server's stdout: responses, agent events (JSON-mode schema via
 * toJsonEventLine) and RPC-only events, written in call order through
 * zot's one ordered stdout (common/stdout.ts: never blocking, never
 * dropping) so a response never overtakes an event written before it. flush()
 * resolves once everything written so far is out (a closed stdout is
 * ignored: the server keeps going until stdin closes). A call whose
 * arguments an extension's guard rewrote is announced as an `ext_notify`
 * warning of that extension. On a terminal, C1 and
 * DEL characters are written as \u escapes (common/terminal-text.ts).
 */
import { argumentsRewrittenText, isUiOnlyEvent, toJsonEventLine, type AgentEvent } from "../../agent/events.ts";
import { jsonForStdout } from "../../common/terminal-text.ts";
import { StdoutWriter } from "../output.ts";
import { failureLine, rpcEventLine, successLine, type RpcEvent, type RpcRequestId } from "./protocol.ts";

export class RpcOutput {
  /** Tool names by call id while the call runs (for the rewritten-arguments note). */
  readonly #toolNames = new Map<string, string>();

  constructor(private readonly writer: StdoutWriter = new StdoutWriter()) {}

  succeeded(command: string, id: RpcRequestId | undefined, data?: unknown): void {
    this.writer.write(jsonForStdout(successLine(command, id, data)));
  }

  failed(command: string, id: RpcRequestId | undefined, error: string): void {
    this.writer.write(jsonForStdout(failureLine(command, id, error)));
  }

  agentEvent(event: AgentEvent): void {
    if (event.type === "tool_call") this.#toolNames.set(event.id, event.name);
    else if (event.type === "tool_result") this.#toolNames.delete(event.id);
    else if (event.type === "tool_start" && event.rewritten !== undefined) {
      // The client learns what a call really runs with when a guard rewrote it, as an ext_notify warning.
      const name = this.#toolNames.get(event.id) ?? "a tool";
      const extension = event.rewritten.by[0];
      if (extension !== undefined) this.event({ type: "ext_notify", extension, level: "warn", message: argumentsRewrittenText(name, event.rewritten) });
    }
    if (isUiOnlyEvent(event)) return;
    this.writer.write(jsonForStdout(toJsonEventLine(event)));
  }

  event(event: RpcEvent): void {
    this.writer.write(jsonForStdout(rpcEventLine(event)));
  }

  flush(): Promise<void> {
    return this.writer.flush();
  }
}
