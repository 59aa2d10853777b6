/**
 * The extension side of `call_tool`: each request gets a fresh id
 * (`call-<n>`), waits for the host's correlated `tool_result`, and can be
 * cancelled with an AbortSignal (sends `call_tool_cancel`, rejects with the
 * signal's reason). A request whose reply never comes rejects after the
 * host's 60 s deadline plus 5 s of slack, or at once when the host goes away
 * (`failAll`). Tool failures are results (`is_error: true`); transport,
 * cancellation and refusal-before-sending are rejections.
 */
import { HOST_DEADLINES } from "./protocol.js";
export class ToolCalls {
    send;
    next = 0;
    pending = new Map();
    constructor(send) {
        this.send = send;
    }
    call(name, args, options) {
        const { signal, parentId } = options;
        if (signal?.aborted)
            return Promise.reject(abortReason(signal));
        const id = `call-${++this.next}`;
        return new Promise((resolve, reject) => {
            let timer;
            const onAbort = () => {
                if (!this.pending.delete(id))
                    return;
                cleanup();
                void this.send({ type: "call_tool_cancel", id }).catch(() => { });
                reject(abortReason(signal));
            };
            const cleanup = () => {
                clearTimeout(timer);
                signal?.removeEventListener("abort", onAbort);
            };
            this.pending.set(id, {
                name,
                resolve: (result) => {
                    cleanup();
                    resolve(result);
                },
                reject: (error) => {
                    cleanup();
                    reject(error);
                },
            });
            signal?.addEventListener("abort", onAbort, { once: true });
            timer = setTimeout(() => this.settle(id, new Error(`call_tool ${name}: no reply within ${HOST_DEADLINES.callTool + 5_000} ms`)), HOST_DEADLINES.callTool + 5_000);
            const frame = { type: "call_tool", id, name, args };
            if (parentId !== undefined)
                frame.parent_id = parentId;
            this.send(frame).catch((error) => this.settle(id, new Error(`call_tool ${name} not sent: ${error.message}`)));
        });
    }
    /** Handles a host `tool_result`; false when no call waits for its id. */
    reply(frame) {
        const id = String(frame.id);
        const pending = this.pending.get(id);
        if (!pending)
            return false;
        this.pending.delete(id);
        pending.resolve({
            name: typeof frame.name === "string" ? frame.name : pending.name,
            content: Array.isArray(frame.content) ? frame.content : [],
            is_error: frame.is_error === true,
            ...(frame.truncated === true ? { truncated: true } : {}),
        });
        return true;
    }
    failAll(reason) {
        for (const id of [...this.pending.keys()])
            this.settle(id, new Error(reason));
    }
    settle(id, error) {
        const pending = this.pending.get(id);
        if (!pending)
            return;
        this.pending.delete(id);
        pending.reject(error);
    }
}
function abortReason(signal) {
    return signal.reason instanceof Error ? signal.reason : new DOMException("call_tool cancelled", "AbortError");
}
