export const prompt = (text) => ({ action: "prompt", prompt: text });
/** Runs `toolName` through the host's guards, records the call + result, then submits `text` as the prompt. */
export const toolPrompt = (toolName, toolArgs, text) => ({
    action: "tool_prompt",
    tool_name: toolName,
    tool_args: toolArgs,
    prompt: text,
});
export const insert = (text) => ({ action: "insert", insert: text });
export const display = (text) => ({ action: "display", display: text });
export const noop = () => ({ action: "noop" });
export const openPanel = (panel) => ({ action: "open_panel", open_panel: panel });
/** A red status line; nothing else happens. */
export const errorResponse = (message) => ({ action: "noop", error: message });
export const textResult = (text) => ({ content: [{ type: "text", text }] });
export const errorResult = (text) => ({ content: [{ type: "text", text }], is_error: true });
export const imageResult = (mimeType, base64) => ({ content: [{ type: "image", mime_type: mimeType, data: base64 }] });
function validBlock(block) {
    if (typeof block !== "object" || block === null)
        return false;
    const b = block;
    if (b.type === "text")
        return typeof b.text === "string";
    if (b.type === "image")
        return typeof b.mime_type === "string" && typeof b.data === "string";
    return false;
}
export function normalizeToolResult(value) {
    if (typeof value === "string")
        return { ok: true, value: textResult(value) };
    if (typeof value !== "object" || value === null)
        return { ok: false, problem: `returned ${value === null ? "null" : typeof value}, not a ToolResult` };
    const result = value;
    if (!Array.isArray(result.content))
        return { ok: false, problem: "returned a result without a content array" };
    const bad = result.content.findIndex((block) => !validBlock(block));
    if (bad !== -1)
        return { ok: false, problem: `content[${bad}] is not a text or image block` };
    const out = { content: result.content };
    if (result.is_error)
        out.is_error = true;
    if (Array.isArray(result.activate_tools))
        out.activate_tools = result.activate_tools.filter((name) => typeof name === "string");
    return { ok: true, value: out };
}
const ACTIONS = new Set(["prompt", "tool_prompt", "insert", "display", "open_panel", "noop"]);
export function normalizeResponse(value) {
    if (value === undefined)
        return { ok: true, value: noop() };
    if (typeof value === "string")
        return { ok: true, value: display(value) };
    if (typeof value !== "object" || value === null)
        return { ok: false, problem: `returned ${value === null ? "null" : typeof value}, not a CommandResponse` };
    const response = value;
    if (!ACTIONS.has(response.action))
        return { ok: false, problem: `unknown action ${JSON.stringify(response.action)}` };
    if (response.action === "open_panel" && (typeof response.open_panel?.id !== "string" || !Array.isArray(response.open_panel.lines))) {
        return { ok: false, problem: "open_panel needs an id and lines" };
    }
    return { ok: true, value: response };
}
export function errorMessage(error) {
    if (error instanceof Error)
        return error.message || error.name;
    return String(error);
}
