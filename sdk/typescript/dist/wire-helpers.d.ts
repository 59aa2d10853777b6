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
export declare function toolFrame(name: string, tool: ToolEntry): {
    type: string;
    [field: string]: unknown;
};
export declare function hostInfo(frame: HostFrame): HostInfo;
export declare function anySignal(first: AbortSignal, second: AbortSignal): AbortSignal;
