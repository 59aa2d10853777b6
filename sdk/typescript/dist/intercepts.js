/** Events where a `block` reply refuses the action (and where `on_timeout: "deny"` applies). */
export const BLOCKING_KINDS = new Set(["tool_call", "turn_start", "assistant_message"]);
/** Runs the handler for `event` (none registered: allow) and returns the reply body. */
export async function interceptReply(handlers, event, note) {
    switch (event.event) {
        case "before_agent_start": {
            const replacement = await handlers.before_agent_start?.(event);
            if (replacement === undefined || replacement === null)
                return {};
            if (typeof replacement !== "string") {
                note("before_agent_start interceptor returned a non-string; prompt kept");
                return {};
            }
            return { system_prompt: replacement };
        }
        case "tool_call": {
            const decision = await handlers.tool_call?.(event);
            if (!decision)
                return {};
            const body = pick(decision, ["block", "reason"]);
            if (decision.modified_args !== undefined) {
                const args = decision.modified_args;
                if (typeof args === "object" && args !== null && !Array.isArray(args))
                    body.modified_args = args;
                else
                    note("tool_call interceptor's modified_args is not a JSON object; ignored");
            }
            return body;
        }
        case "turn_start": {
            const decision = await handlers.turn_start?.(event);
            return decision ? pick(decision, ["block", "reason"]) : {};
        }
        case "assistant_message": {
            const decision = await handlers.assistant_message?.(event);
            return decision ? pick(decision, ["block", "reason", "replace_text"]) : {};
        }
        case "tool_result": {
            const decision = await handlers.tool_result?.(event);
            if (!decision || decision.content === undefined)
                return {};
            if (!Array.isArray(decision.content)) {
                note("tool_result interceptor's content is not an array; result kept");
                return {};
            }
            return { content: decision.content };
        }
        default:
            return {};
    }
}
function pick(from, keys) {
    const body = {};
    for (const key of keys)
        if (from[key] !== undefined)
            body[key] = from[key];
    return body;
}
