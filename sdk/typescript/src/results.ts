/**
 * Builders for what handlers return, named like the Go SDK's helpers:
 * slash-command responses (prompt, toolPrompt, insert, display, openPanel,
 * noop, errorResponse) and tool results (textResult, errorResult,
 * imageResult). `normalizeToolResult` / `normalizeResponse` turn whatever a
 * handler returned (a string is shorthand for text / display) into a valid
 * wire body, or say what is wrong with it.
 */
import type { CommandResponse, ContentBlock, JsonObject, PanelSpec, ToolResult } from "./protocol.ts";

export const prompt = (text: string): CommandResponse => ({ action: "prompt", prompt: text });
/** Runs `toolName` through the host's guards, records the call + result, then submits `text` as the prompt. */
export const toolPrompt = (toolName: string, toolArgs: JsonObject, text: string): CommandResponse => ({
  action: "tool_prompt",
  tool_name: toolName,
  tool_args: toolArgs,
  prompt: text,
});
export const insert = (text: string): CommandResponse => ({ action: "insert", insert: text });
export const display = (text: string): CommandResponse => ({ action: "display", display: text });
export const noop = (): CommandResponse => ({ action: "noop" });
export const openPanel = (panel: PanelSpec): CommandResponse => ({ action: "open_panel", open_panel: panel });
/** A red status line; nothing else happens. */
export const errorResponse = (message: string): CommandResponse => ({ action: "noop", error: message });

export const textResult = (text: string): ToolResult => ({ content: [{ type: "text", text }] });
export const errorResult = (text: string): ToolResult => ({ content: [{ type: "text", text }], is_error: true });
export const imageResult = (mimeType: string, base64: string): ToolResult => ({ content: [{ type: "image", mime_type: mimeType, data: base64 }] });

function validBlock(block: unknown): block is ContentBlock {
  if (typeof block !== "object" || block === null) return false;
  const b = block as Record<string, unknown>;
  if (b.type === "text") return typeof b.text === "string";
  if (b.type === "image") return typeof b.mime_type === "string" && typeof b.data === "string";
  return false;
}

export type Normalized<T> = { ok: true; value: T } | { ok: false; problem: string };

export function normalizeToolResult(value: unknown): Normalized<ToolResult> {
  if (typeof value === "string") return { ok: true, value: textResult(value) };
  if (typeof value !== "object" || value === null) return { ok: false, problem: `returned ${value === null ? "null" : typeof value}, not a ToolResult` };
  const result = value as Partial<ToolResult>;
  if (!Array.isArray(result.content)) return { ok: false, problem: "returned a result without a content array" };
  const bad = result.content.findIndex((block) => !validBlock(block));
  if (bad !== -1) return { ok: false, problem: `content[${bad}] is not a text or image block` };
  const out: ToolResult = { content: result.content };
  if (result.is_error) out.is_error = true;
  if (Array.isArray(result.activate_tools)) out.activate_tools = result.activate_tools.filter((name) => typeof name === "string");
  return { ok: true, value: out };
}

const ACTIONS = new Set(["prompt", "tool_prompt", "insert", "display", "open_panel", "noop"]);

export function normalizeResponse(value: unknown): Normalized<CommandResponse> {
  if (value === undefined) return { ok: true, value: noop() };
  if (typeof value === "string") return { ok: true, value: display(value) };
  if (typeof value !== "object" || value === null) return { ok: false, problem: `returned ${value === null ? "null" : typeof value}, not a CommandResponse` };
  const response = value as CommandResponse;
  if (!ACTIONS.has(response.action)) return { ok: false, problem: `unknown action ${JSON.stringify(response.action)}` };
  if (response.action === "open_panel" && (typeof response.open_panel?.id !== "string" || !Array.isArray(response.open_panel.lines))) {
    return { ok: false, problem: "open_panel needs an id and lines" };
  }
  return { ok: true, value: response };
}

export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}
