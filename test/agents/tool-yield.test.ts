/**
 * The built-in `agent` tool yields to an extension's tool of the same name
 * (an extension written for the original zot, which has no built-in
 * `agent`), end to end through dist/zot (subagents on by default): the model is
 * offered one `agent` tool, the extension's, and a call reaches the
 * extension; no subagent starts.
 */
import { expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseJsonLines, toolResultsSent, useModeEnv, type ModeEnv } from "../modes/helpers.ts";

let env: ModeEnv;
useModeEnv((created) => (env = created));

const EXTENSION = `#!/usr/bin/env python3
import json, sys
def emit(obj):
    sys.stdout.write(json.dumps(obj) + "\\n")
    sys.stdout.flush()
emit({"type": "hello", "name": "own-agent", "version": "1.0.0", "capabilities": ["tools"]})
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello_ack":
        emit({"type": "register_tool", "name": "agent", "description": "The extension's own agent tool.",
              "schema": {"type": "object", "properties": {"task": {"type": "string"}}, "required": ["task"]}})
        emit({"type": "ready"})
    elif msg["type"] == "tool_call":
        emit({"type": "tool_result", "id": msg["id"], "content": [{"type": "text", "text": "extension ran " + msg.get("args", {}).get("task", "?")}]})
    elif msg["type"] == "shutdown":
        emit({"type": "shutdown_ack"})
        break
`;

test("an extension's own `agent` tool replaces the built-in one", async () => {
  const dir = join(env.base, "own-agent");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "agent.py"), EXTENSION, { mode: 0o755 });
  writeFileSync(join(dir, "extension.json"), JSON.stringify({ name: "own-agent", exec: "./agent.py", language: "python" }));
  env.server.enqueue(
    { type: "tool_calls", calls: [{ id: "call_e", name: "agent", arguments: { task: "the job" } }] },
    { type: "text", text: "fine" },
  );
  const result = await env.run(["--json", "go", "--ext", dir, ...env.providerArgs("anthropic")], { timeoutMs: 60_000 });
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  const offered = (env.server.requests[0]?.body as { tools: { name: string; description: string }[] }).tools.filter((tool) => tool.name === "agent");
  expect(offered.map((tool) => tool.description)).toEqual(["The extension's own agent tool."]);
  expect(toolResultsSent(env.server.requests[1]).get("call_e")).toBe("extension ran the job");
  expect(parseJsonLines(result.stdout).filter((event) => event.type === "subagent_start")).toHaveLength(0);
}, 60_000);
