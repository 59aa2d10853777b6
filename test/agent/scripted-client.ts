/**
 * A scripted ProviderClient standing in for the model: each stream() call
 * consumes the next queued step, emits the stream events a real provider
 * would emit for its blocks, and resolves with the assembled result (or
 * rejects, or waits for the abort signal). Every request is recorded.
 */
import type {
  ContentBlock,
  Message,
  ProviderClient,
  ProviderName,
  StopReason,
  StreamEvent,
  StreamRequest,
  StreamResult,
  Usage,
} from "../../src/providers/types.ts";
import { emptyUsage } from "../../src/providers/types.ts";

export type ScriptStep =
  | { readonly kind: "reply"; readonly content: readonly ContentBlock[]; readonly stop: StopReason; readonly usage: Usage }
  | { readonly kind: "fail"; readonly error: Error; readonly afterEvents: readonly StreamEvent[] }
  | { readonly kind: "hang"; readonly partial: readonly ContentBlock[] };

export function usage(input: number, output: number, cost = 0, cacheRead = 0, cacheWrite = 0): Usage {
  return {
    input_tokens: input,
    output_tokens: output,
    cache_read_tokens: cacheRead,
    cache_write_tokens: cacheWrite,
    cost_usd: cost,
  };
}

export function text(value: string): ContentBlock {
  return { type: "text", text: value };
}

export function toolCall(id: string, name: string, args: string | Record<string, unknown>): ContentBlock {
  return { type: "tool_call", id, name, arguments: typeof args === "string" ? args : JSON.stringify(args) };
}

export function reply(content: readonly ContentBlock[], stop?: StopReason, turnUsage: Usage = usage(10, 5)): ScriptStep {
  const inferred: StopReason = content.some((block) => block.type === "tool_call") ? "tool_use" : "end";
  return { kind: "reply", content, stop: stop ?? inferred, usage: turnUsage };
}

export function fail(error: Error, afterEvents: readonly StreamEvent[] = []): ScriptStep {
  return { kind: "fail", error, afterEvents };
}

/** Streams the partial blocks, then resolves with stop "aborted" once the request's signal aborts. */
export function hangUntilAbort(partial: readonly ContentBlock[] = []): ScriptStep {
  return { kind: "hang", partial };
}

export interface RecordedRequest {
  readonly system: string;
  readonly messages: readonly Message[];
  readonly toolNames: readonly string[];
  readonly maxTokens?: number;
  readonly reasoning?: string;
}

function eventsFor(content: readonly ContentBlock[]): StreamEvent[] {
  const events: StreamEvent[] = [];
  for (const block of content) {
    if (block.type === "text") events.push({ type: "text_delta", delta: block.text });
    if (block.type === "thinking") events.push({ type: "thinking_delta", delta: block.thinking });
    if (block.type === "tool_call") {
      events.push({ type: "tool_use_start", id: block.id, name: block.name });
      events.push({ type: "tool_use_args", id: block.id, delta: block.arguments });
      events.push({ type: "tool_use_end", id: block.id });
    }
  }
  return events;
}

function assistant(content: readonly ContentBlock[]): Message {
  return { role: "assistant", content, time: new Date().toISOString() };
}

export class ScriptedClient implements ProviderClient {
  readonly requests: RecordedRequest[] = [];
  readonly #steps: ScriptStep[];

  constructor(
    steps: readonly ScriptStep[],
    readonly name: ProviderName = "anthropic",
  ) {
    this.#steps = [...steps];
  }

  get remaining(): number {
    return this.#steps.length;
  }

  async stream(request: StreamRequest, onEvent: (event: StreamEvent) => void): Promise<StreamResult> {
    this.requests.push({
      system: request.system,
      messages: structuredClone([...request.messages]),
      toolNames: request.tools.map((tool) => tool.name),
      maxTokens: request.maxTokens,
      reasoning: request.reasoning,
    });
    const step = this.#steps.shift();
    if (step === undefined) throw new Error("scripted client: no step left");
    await Promise.resolve();
    switch (step.kind) {
      case "reply": {
        for (const event of eventsFor(step.content)) onEvent(event);
        onEvent({ type: "usage", usage: step.usage });
        return { message: assistant(step.content), stop: step.stop, usage: step.usage };
      }
      case "fail":
        for (const event of step.afterEvents) onEvent(event);
        throw step.error;
      case "hang": {
        for (const event of eventsFor(step.partial)) onEvent(event);
        await new Promise<void>((resolve) => {
          if (request.signal.aborted) resolve();
          else request.signal.addEventListener("abort", () => resolve(), { once: true });
        });
        return { message: assistant(step.partial), stop: "aborted", usage: emptyUsage() };
      }
    }
  }
}
