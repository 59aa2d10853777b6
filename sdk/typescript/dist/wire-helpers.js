export function toolFrame(name, tool) {
    const frame = { type: "register_tool", name, description: tool.description, schema: tool.schema };
    if (tool.deferred)
        frame.deferred = true;
    if (tool.interactive)
        frame.interactive = true;
    return frame;
}
export function hostInfo(frame) {
    const text = (key) => (typeof frame[key] === "string" ? frame[key] : "");
    return {
        protocolVersion: typeof frame.protocol_version === "number" ? frame.protocol_version : 0,
        zotVersion: text("zot_version"),
        provider: text("provider"),
        model: text("model"),
        cwd: text("cwd"),
        extensionDir: text("extension_dir"),
        dataDir: text("data_dir"),
        capabilities: Array.isArray(frame.capabilities) ? frame.capabilities.filter((c) => typeof c === "string") : [],
        raw: frame,
    };
}
export function anySignal(first, second) {
    if (first.aborted)
        return first;
    if (second.aborted)
        return second;
    const controller = new AbortController();
    const forward = (source) => () => controller.abort(source.reason);
    first.addEventListener("abort", forward(first), { once: true });
    second.addEventListener("abort", forward(second), { once: true });
    return controller.signal;
}
