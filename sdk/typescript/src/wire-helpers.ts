/**
 * Small translations between the SDK's objects and wire frames:
 * `register_tool` frames, hello_ack → HostInfo, and one AbortSignal that
 * aborts when either of two does (AbortSignal.any needs Node 20.3).
 */
import type { HostFrame, HostInfo, JsonObject } from "./protocol.ts";
import type { ToolHandler } from "./handlers.ts";

export interface ToolEntry {
  readonly description: string;
  readonly schema: JsonObject;
  readonly deferred: boolean;
  readonly interactive: boolean;
  readonly handler: ToolHandler;
}
export function toolFrame(name: string, tool: ToolEntry): { type: string; [field: string]: unknown } {
  const frame: { type: string; [field: string]: unknown } = { type: "register_tool", name, description: tool.description, schema: tool.schema };
  if (tool.deferred) frame.deferred = true;
  if (tool.interactive) frame.interactive = true;
  return frame;
}

export function hostInfo(frame: HostFrame): HostInfo {
  const text = (key: string): string => (typeof frame[key] === "string" ? (frame[key] as string) : "");
  return {
    protocolVersion: typeof frame.protocol_version === "number" ? frame.protocol_version : 0,
    zotVersion: text("zot_version"),
    provider: text("provider"),
    model: text("model"),
    cwd: text("cwd"),
    extensionDir: text("extension_dir"),
    dataDir: text("data_dir"),
    capabilities: Array.isArray(frame.capabilities) ? frame.capabilities.filter((c): c is string => typeof c === "string") : [],
    raw: frame,
  };
}

export function anySignal(first: AbortSignal, second: AbortSignal): AbortSignal {
  if (first.aborted) return first;
  if (second.aborted) return second;
  const controller = new AbortController();
  const forward = (source: AbortSignal) => () => controller.abort(source.reason);
  first.addEventListener("abort", forward(first), { once: true });
  second.addEventListener("abort", forward(second), { once: true });
  return controller.signal;
}
