/**
 * Builders for what handlers return, named like the Go SDK's helpers:
 * slash-command responses (prompt, toolPrompt, insert, display, openPanel,
 * noop, errorResponse) and tool results (textResult, errorResult,
 * imageResult). `normalizeToolResult` / `normalizeResponse` turn whatever a
 * handler returned (a string is shorthand for text / display) into a valid
 * wire body, or say what is wrong with it.
 */
import type { CommandResponse, JsonObject, PanelSpec, ToolResult } from "./protocol.ts";
export declare const prompt: (text: string) => CommandResponse;
/** Runs `toolName` through the host's guards, records the call + result, then submits `text` as the prompt. */
export declare const toolPrompt: (toolName: string, toolArgs: JsonObject, text: string) => CommandResponse;
export declare const insert: (text: string) => CommandResponse;
export declare const display: (text: string) => CommandResponse;
export declare const noop: () => CommandResponse;
export declare const openPanel: (panel: PanelSpec) => CommandResponse;
/** A red status line; nothing else happens. */
export declare const errorResponse: (message: string) => CommandResponse;
export declare const textResult: (text: string) => ToolResult;
export declare const errorResult: (text: string) => ToolResult;
export declare const imageResult: (mimeType: string, base64: string) => ToolResult;
export type Normalized<T> = {
    ok: true;
    value: T;
} | {
    ok: false;
    problem: string;
};
export declare function normalizeToolResult(value: unknown): Normalized<ToolResult>;
export declare function normalizeResponse(value: unknown): Normalized<CommandResponse>;
export declare function errorMessage(error: unknown): string;
