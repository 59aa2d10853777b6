/**
 * The RPC server's stdout: responses, agent events (JSON-mode schema via
 * toJsonEventLine) and RPC-only events, written in call order through
 * zot's one ordered stdout (common/stdout.ts: never blocking, never
 * dropping) so a response never overtakes an event written before it. flush()
 * resolves once everything written so far is out (a closed stdout is
 * ignored: the server keeps going until stdin closes). On a terminal, C1 and
 * DEL characters are written as \u escapes (common/terminal-text.ts).
 */
import { isUiOnlyEvent, toJsonEventLine, type AgentEvent } from "../../agent/events.ts";
import { jsonForStdout } from "../../common/terminal-text.ts";
import { StdoutWriter } from "../output.ts";
import { failureLine, rpcEventLine, successLine, type RpcEvent, type RpcRequestId } from "./protocol.ts";

export class RpcOutput {
  constructor(private readonly writer: StdoutWriter = new StdoutWriter()) {}

  succeeded(command: string, id: RpcRequestId | undefined, data?: unknown): void {
    this.writer.write(jsonForStdout(successLine(command, id, data)));
  }

  failed(command: string, id: RpcRequestId | undefined, error: string): void {
    this.writer.write(jsonForStdout(failureLine(command, id, error)));
  }

  agentEvent(event: AgentEvent): void {
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
