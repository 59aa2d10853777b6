/**
 * Skills compiled into the binary. Today there is one, `write-zot-extension`:
 * a compact guide to writing a zot extension (layout, manifest, handshake,
 * commands, tools, events, notify, shutdown, Python and TypeScript examples,
 * install/run/debug commands). Built-ins are offered to the `skill` tool and
 * listed in the prompt addendum, but hidden from user-facing listings. The
 * texts are plain constants: nothing is computed at import time.
 */

export interface BuiltinSkillDefinition {
  readonly name: string;
  readonly description: string;
  readonly body: string;
}

const WRITE_ZOT_EXTENSION_BODY = `A zot extension is any program that speaks newline-delimited JSON over stdin/stdout. One JSON object per line, \`type\` is the discriminator, \`id\` pairs requests with replies. stdout is reserved for frames: write logs to stderr (zot appends it to \`$ZOT_HOME/logs/ext-<name>.log\`).

## Layout

\`\`\`
<dir>/
├── extension.json   # manifest (required)
└── main.py          # whatever "exec" runs
\`\`\`

zot loads \`--ext <dir>\` paths first, then \`./.zot/extensions/<dir>/\` (project), then \`$ZOT_HOME/extensions/<dir>/\` (global). The first extension to claim a name wins; later ones are shadowed.

## Manifest (extension.json)

\`\`\`json
{"name": "weather", "version": "1.0.0", "exec": "./main.py", "args": [],
 "language": "python", "description": "current weather", "enabled": true}
\`\`\`

- \`name\` (required): letters, digits, \`_ - . @ +\`; must equal the name in \`hello\`.
- \`exec\`: program to run, relative to the manifest dir (or a command on PATH such as \`node\`); \`args\`: extra argv.
- \`version\`, \`language\`, \`description\`: informational. \`enabled: false\` skips it.
- \`skills\`: SKILL.md paths or directories (scanned recursively), relative to the manifest. A bundle with \`skills\` and no \`exec\` is never spawned.
- \`on_timeout\`: \`"allow"\` (default) or \`"deny"\` when an intercept reply is late.

The process runs with the extension dir as its working directory.

## Handshake

1. Extension → \`{"type":"hello","name":"weather","version":"1.0.0","capabilities":["commands","tools"]}\` — must be the very first line.
2. zot → \`hello_ack\` with \`protocol_version\`, \`zot_version\`, \`provider\`, \`model\`, \`cwd\` (the user's project; use it, not your own cwd), \`extension_dir\`/\`data_dir\` (keep your state there) and the host \`capabilities\`.
3. Extension → \`register_command\` / \`register_tool\` / \`subscribe\` frames, then \`{"type":"ready"}\`.

zot gives extensions 15 s to start (\`ZOT_EXT_READY_TIMEOUT_MS\` or config.json \`ext_ready_timeout_ms\`); send \`ready\` right after your registrations, since they take effect only then.

## Commands

\`{"type":"register_command","name":"weather","description":"weather for a city"}\` makes \`/weather\` available. zot sends \`{"type":"command_invoked","id":"c1","name":"weather","args":"berlin"}\`; reply \`{"type":"command_response","id":"c1","action":"prompt","prompt":"..."}\`. Actions: \`prompt\` (submit as a user message), \`display\` (note in the chat, not sent to the model), \`insert\` (put text in the editor), \`tool_prompt\` (\`tool_name\` + \`tool_args\` run before \`prompt\` is sent), \`open_panel\`, \`noop\`. A non-empty \`error\` field is shown in red.

## Tools

\`\`\`json
{"type":"register_tool","name":"weather","description":"Current weather for a city.",
 "schema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}
\`\`\`

Calls arrive as \`{"type":"tool_call","id":"t1","name":"weather","args":{"city":"Berlin"}}\`; answer \`{"type":"tool_result","id":"t1","content":[{"type":"text","text":"Berlin: 16°C"}]}\` (add \`"is_error":true\` on failure; image blocks are \`{"type":"image","mime_type":"image/png","data":"<base64>"}\`). Reply within 60 s. Built-in names (read, write, edit, bash, skill) cannot be taken. Optional: \`"deferred":true\` (hidden until a result lists it in \`activate_tools\`), \`"interactive":true\` (no deadline; refused in headless modes), capability \`tool_cancel\` to receive \`{"type":"tool_cancel","id":"t1"}\`, capability \`call_tool\` to call other tools with \`{"type":"call_tool","id":"r1","name":"read","args":{...}}\`.

## Events and interception

Before \`ready\`: \`{"type":"subscribe","events":["turn_start","tool_call"],"intercept":["tool_call"]}\`. Observed events arrive as \`{"type":"event","event":"turn_start",...}\` and need no reply. Intercepts arrive as \`{"type":"event_intercept","id":"i1","event":"tool_call","tool_name":"bash","tool_args":{...}}\` and must be answered within 5 s with \`{"type":"event_intercept_response","id":"i1"}\` plus \`"block":true,"reason":"..."\` to refuse, \`"modified_args":{...}\` to rewrite a tool call, \`"replace_text":"..."\` for \`assistant_message\`, or \`"system_prompt":"..."\` for \`before_agent_start\`. Interceptable: \`tool_call\`, \`turn_start\`, \`assistant_message\`, \`before_agent_start\`.

## Notes and submit

\`{"type":"notify","level":"info","message":"cache refreshed"}\` (levels info, success, warn, error) shows a one-shot note; \`{"type":"clear_notes"}\` removes yours. \`{"type":"submit","text":"..."}\` queues a user prompt (interactive mode only).

## Shutdown

zot sends \`{"type":"shutdown"}\`; reply \`{"type":"shutdown_ack"}\` and exit. After 2 s the process is terminated.

## Python example

\`\`\`python
#!/usr/bin/env python3
import json, sys
def send(frame): sys.stdout.write(json.dumps(frame) + "\\n"); sys.stdout.flush()
send({"type": "hello", "name": "greet", "version": "1.0.0", "capabilities": ["commands", "tools"]})
for line in sys.stdin:
    f = json.loads(line)
    if f["type"] == "hello_ack":
        send({"type": "register_command", "name": "greet", "description": "say hi"})
        send({"type": "register_tool", "name": "shout", "description": "Upper-case a text.",
              "schema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}})
        send({"type": "ready"})
    elif f["type"] == "command_invoked":
        send({"type": "command_response", "id": f["id"], "action": "prompt", "prompt": "Greet me in one sentence."})
    elif f["type"] == "tool_call":
        text = str(f.get("args", {}).get("text", ""))
        send({"type": "tool_result", "id": f["id"], "content": [{"type": "text", "text": text.upper()}]})
    elif f["type"] == "shutdown":
        send({"type": "shutdown_ack"}); break
\`\`\`

Manifest: \`{"name":"greet","exec":"./greet.py","language":"python"}\`, then \`chmod +x greet.py\`.

## TypeScript example

Manifest: \`{"name":"notes","exec":"bun","args":["index.ts"],"language":"typescript"}\`

\`\`\`ts
import { createInterface } from "node:readline";
const send = (frame: object) => process.stdout.write(JSON.stringify(frame) + "\\n");
const notes: string[] = [];
send({ type: "hello", name: "notes", version: "1.0.0", capabilities: ["commands", "tools"] });
createInterface({ input: process.stdin }).on("line", (line) => {
  const f = JSON.parse(line);
  if (f.type === "hello_ack") {
    send({ type: "register_command", name: "note", description: "remember a note" });
    send({ type: "register_tool", name: "read_notes", description: "Read the user's notes.", schema: { type: "object", properties: {} } });
    send({ type: "ready" });
  } else if (f.type === "command_invoked") {
    notes.push(f.args ?? "");
    send({ type: "command_response", id: f.id, action: "display", display: "noted" });
  } else if (f.type === "tool_call") {
    send({ type: "tool_result", id: f.id, content: [{ type: "text", text: notes.join("\\n") || "(none)" }] });
  } else if (f.type === "shutdown") {
    send({ type: "shutdown_ack" });
    process.exit(0);
  }
});
\`\`\`

## Install, run, debug

- \`zot --ext ./my-ext\` (or \`-e\`, repeatable): load from disk for one run; wins over an installed copy.
- \`zot ext install ./my-ext\` (or a git URL; \`--project\` for \`./.zot/extensions\`), \`zot ext list\`, \`zot ext enable|disable|remove <name>\`.
- \`zot ext doctor\`: runs the real startup and reports manifest errors, handshake failures, registered commands/tools and conflicts.
- \`zot ext logs <name>\` (\`-f\` to follow): the extension's stderr plus host notes.
- In the TUI, \`/reload-ext\` restarts all extensions after an edit.

Checklist: \`hello\` first, nothing else on stdout, flush after every line, \`ready\` after registrations, answer every \`id\`, handle \`shutdown\`.`;

/** The built-in skills, in a stable order. */
export const BUILTIN_SKILLS: readonly BuiltinSkillDefinition[] = [
  {
    name: "write-zot-extension",
    description:
      "How to write a zot extension in any language: layout, extension.json, the stdio JSON handshake, slash commands, tools, event interception, notes, shutdown, and how to install and debug it.",
    body: WRITE_ZOT_EXTENSION_BODY,
  },
];
