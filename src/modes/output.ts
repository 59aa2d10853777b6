/**
 * What a headless mode does with the run's observable results. The runner
 * (headless.ts) feeds every agent event, an extension's `display` text and
 * the final success or failure; print.ts and json.ts decide what reaches
 * stdout. stdout writes go out in call order through common/stdout.ts
 * (never blocking the event loop, never dropped); flush() resolves once all
 * of them are written (a closed stdout is ignored; after a signal it waits
 * at most 1 s).
 */
import type { AgentEvent } from "../agent/events.ts";
import { flushStdout, writeStdoutText } from "../common/stdout.ts";

export interface HeadlessOutput {
  /** Every event, as the agent (or a command's tool_prompt) emits it. */
  event(event: AgentEvent): void;
  /** An extension command's `display` action. */
  display(extension: string, text: string): void;
  /** The run succeeded (exit 0). */
  succeeded(): void;
  /** The run failed or was interrupted; `message` is the one-line reason. */
  failed(message: string): void;
  flush(): Promise<void>;
}

export class StdoutWriter {
  write(text: string): void {
    writeStdoutText(text);
  }

  flush(): Promise<void> {
    return flushStdout();
  }
}
