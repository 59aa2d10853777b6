/**
 * The files `zot ext new` writes for each language: extension.json, the
 * program and a README. Python uses the SDK: sdk/python/template with the
 * name substituted and sdk/python/zot_extension vendored beside main.py
 * (embedded in the binary by scaffold-python-sdk.ts; `/hello` and the
 * `shout` tool); TypeScript likewise (sdk/typescript/template, its dist/
 * vendored as zot-sdk/, scaffold-ts-sdk.ts; `/hello` and `greet`). Shell
 * is a raw-protocol program: it says hello, registers `/<command>` (a
 * display note) and the tool `<command>_echo {text}`, sends ready, answers
 * shutdown with shutdown_ack and exits, exits on stdin EOF, ignores frames
 * it does not know and logs bad input to stderr instead of dying (the raw
 * TypeScript and Python programs are kept in rawFiles for people who want
 * no SDK). Every scaffold passes `zot ext test` as generated.
 */
import { PYTHON_SDK_FILES, PYTHON_TEMPLATE, TEMPLATE_NAME } from "./scaffold-python-sdk.ts";
import { TYPESCRIPT_SDK_FILES, TYPESCRIPT_TEMPLATE } from "./scaffold-ts-sdk.ts";
export const SCAFFOLD_LANGUAGES = ["ts", "python", "sh"] as const;
export type ScaffoldLanguage = (typeof SCAFFOLD_LANGUAGES)[number];

export interface ScaffoldFile {
  readonly path: string;
  readonly text: string;
  readonly executable: boolean;
}

export interface ScaffoldNames {
  readonly name: string;
  readonly command: string;
  readonly tool: string;
}

function manifest(names: ScaffoldNames, exec: string, language: string): string {
  return `${JSON.stringify({ name: names.name, version: "0.1.0", exec, language, description: `${names.name}: /${names.command} and the ${names.tool} tool`, enabled: true }, null, 2)}\n`;
}

const TOOL_SCHEMA = { type: "object", properties: { text: { type: "string", description: "text to echo back" } }, required: ["text"] };

function typescript(names: ScaffoldNames): string {
  return `#!/usr/bin/env bun
// ${names.name}: a zot extension speaking the protocol directly (NDJSON on stdin/stdout).
// Protocol: docs/extensions.md and schemas/ in the zot repository. stderr goes to zot's log.
import { createInterface } from "node:readline";

type Frame = { type: string; [field: string]: unknown };
const NAME = ${JSON.stringify(names.name)};

function send(frame: Frame): void {
  process.stdout.write(\`\${JSON.stringify(frame)}\\n\`);
}

function handle(frame: Frame): void {
  switch (frame.type) {
    case "hello_ack":
      send({ type: "register_command", name: ${JSON.stringify(names.command)}, description: "say hello from " + NAME });
      send({ type: "register_tool", name: ${JSON.stringify(names.tool)}, description: "Echo the given text back.", schema: ${JSON.stringify(TOOL_SCHEMA)} });
      send({ type: "ready" });
      return;
    case "command_invoked":
      send({ type: "command_response", id: frame.id, action: "display", display: \`hello from \${NAME}\${frame.args ? \`: \${String(frame.args)}\` : ""}\` });
      return;
    case "tool_call": {
      const args = (frame.args ?? {}) as { text?: unknown };
      const ok = typeof args.text === "string";
      send({ type: "tool_result", id: frame.id, content: [{ type: "text", text: ok ? String(args.text) : "missing text" }], is_error: !ok });
      return;
    }
    case "shutdown":
      send({ type: "shutdown_ack" });
      process.exit(0);
    default:
      return; // unknown frames are ignored
  }
}

send({ type: "hello", name: NAME, version: "0.1.0", capabilities: ["commands", "tools"] });
const lines = createInterface({ input: process.stdin });
lines.on("line", (line) => {
  if (line.trim() === "") return;
  try {
    handle(JSON.parse(line) as Frame);
  } catch (err) {
    console.error(\`\${NAME}: bad frame: \${err instanceof Error ? err.message : String(err)}\`);
  }
});
lines.on("close", () => process.exit(0)); // EOF: zot is gone
`;
}

function python(names: ScaffoldNames): string {
  return `#!/usr/bin/env python3
# ${names.name}: a zot extension speaking the protocol directly (NDJSON on stdin/stdout).
# Protocol: docs/extensions.md and schemas/ in the zot repository. stderr goes to zot's log.
import json
import sys

NAME = ${JSON.stringify(names.name)}


def send(frame):
    sys.stdout.write(json.dumps(frame) + "\\n")
    sys.stdout.flush()


def handle(frame):
    kind = frame.get("type")
    if kind == "hello_ack":
        send({"type": "register_command", "name": ${JSON.stringify(names.command)}, "description": "say hello from " + NAME})
        send({"type": "register_tool", "name": ${JSON.stringify(names.tool)}, "description": "Echo the given text back.",
              "schema": ${JSON.stringify(TOOL_SCHEMA)}})
        send({"type": "ready"})
    elif kind == "command_invoked":
        suffix = ": " + frame["args"] if frame.get("args") else ""
        send({"type": "command_response", "id": frame["id"], "action": "display", "display": "hello from " + NAME + suffix})
    elif kind == "tool_call":
        text = (frame.get("args") or {}).get("text")
        ok = isinstance(text, str)
        send({"type": "tool_result", "id": frame["id"], "content": [{"type": "text", "text": text if ok else "missing text"}],
              "is_error": not ok})
    elif kind == "shutdown":
        send({"type": "shutdown_ack"})
        sys.exit(0)
    # unknown frames are ignored


send({"type": "hello", "name": NAME, "version": "0.1.0", "capabilities": ["commands", "tools"]})
for line in sys.stdin:
    if not line.strip():
        continue
    try:
        handle(json.loads(line))
    except (ValueError, KeyError, TypeError, AttributeError) as err:
        print(NAME + ": bad frame: " + str(err), file=sys.stderr)
# EOF: zot is gone
`;
}

function shell(names: ScaffoldNames): string {
  const register = JSON.stringify({ type: "register_tool", name: names.tool, description: "Echo the given text back.", schema: TOOL_SCHEMA });
  return `#!/bin/sh
# ${names.name}: a zot extension in POSIX shell + jq (NDJSON on stdin/stdout).
# Protocol: docs/extensions.md and schemas/ in the zot repository. stderr goes to zot's log.
command -v jq >/dev/null 2>&1 || { echo "${names.name}: jq is required" >&2; exit 1; }
NAME='${names.name}'

printf '%s\\n' '{"type":"hello","name":"${names.name}","version":"0.1.0","capabilities":["commands","tools"]}'
while IFS= read -r line; do
  [ -z "$line" ] && continue
  type=$(printf '%s' "$line" | jq -r '.type // empty' 2>/dev/null) || { echo "$NAME: bad frame" >&2; continue; }
  case "$type" in
    hello_ack)
      printf '%s\\n' '{"type":"register_command","name":"${names.command}","description":"say hello from ${names.name}"}'
      printf '%s\\n' '${register}'
      printf '%s\\n' '{"type":"ready"}' ;;
    command_invoked)
      printf '%s' "$line" | jq -c --arg name "$NAME" \\
        '{type:"command_response",id:.id,action:"display",display:("hello from " + $name + (if (.args // "") != "" then ": " + .args else "" end))}' ;;
    tool_call)
      printf '%s' "$line" | jq -c \\
        'if (.args.text | type) == "string" then {type:"tool_result",id:.id,content:[{type:"text",text:.args.text}]}
         else {type:"tool_result",id:.id,content:[{type:"text",text:"missing text"}],is_error:true} end' ;;
    shutdown)
      printf '%s\\n' '{"type":"shutdown_ack"}'
      exit 0 ;;
    *) ;; # unknown frames are ignored
  esac
done
# EOF: zot is gone
`;
}

function readme(names: ScaffoldNames, language: ScaffoldLanguage, program: string): string {
  const runtime = { ts: "Bun (`bun` on PATH)", python: "Python 3", sh: "a POSIX shell and `jq`" }[language];
  return `# ${names.name}

A zot extension (${runtime}). \`${program}\` speaks the protocol directly:
newline-delimited JSON on stdin/stdout; what it writes to stderr lands in
zot's log (\`zot ext logs ${names.name}\`).

- \`/${names.command}\`: shows a note.
- \`${names.tool}\` (a tool the model can call): echoes \`text\` back.

\`\`\`sh
zot --ext .          # load it for one run (from this directory)
zot ext test .       # conformance test: handshake, frames, tools, commands, shutdown, EOF
zot ext install .    # install it into $ZOT_HOME/extensions
\`\`\`

The protocol (frames, limits, timeouts) is described in zot's
docs/extensions.md; JSON Schemas of every frame and of extension.json are in
zot's schemas/ directory. Keep \`name\` in extension.json and in the hello frame
the same.
`;
}

export interface Scaffold {
  readonly files: readonly ScaffoldFile[];
  /** What the extension registers, for the hint printed after scaffolding. */
  readonly command: string;
  readonly tool: string;
}

function pythonSdk(names: ScaffoldNames): Scaffold {
  const named = (text: string): string => text.replaceAll(TEMPLATE_NAME, names.name);
  const files: ScaffoldFile[] = [
    { path: "extension.json", text: named(PYTHON_TEMPLATE["extension.json"]), executable: false },
    { path: "main.py", text: named(PYTHON_TEMPLATE["main.py"]), executable: false },
    { path: "README.md", text: named(PYTHON_TEMPLATE["README.md"]), executable: false },
    ...Object.entries(PYTHON_SDK_FILES).map(([file, text]) => ({ path: `zot_extension/${file}`, text, executable: false })),
  ];
  return { files, command: "hello", tool: "shout" };
}

function typescriptSdk(names: ScaffoldNames): Scaffold {
  const named = (text: string): string => text.replaceAll(TEMPLATE_NAME, names.name);
  const files: ScaffoldFile[] = [
    { path: "extension.json", text: named(TYPESCRIPT_TEMPLATE["extension.json"]), executable: false },
    { path: "main.ts", text: named(TYPESCRIPT_TEMPLATE["main.ts"]), executable: false },
    { path: "README.md", text: named(TYPESCRIPT_TEMPLATE["README.md"]), executable: false },
    ...Object.entries(TYPESCRIPT_SDK_FILES).map(([file, text]) => ({ path: `zot-sdk/${file}`, text, executable: false })),
  ];
  return { files, command: "hello", tool: "greet" };
}

export function scaffold(names: ScaffoldNames, language: ScaffoldLanguage): Scaffold {
  if (language === "python") return pythonSdk(names);
  if (language === "ts") return typescriptSdk(names);
  return { files: rawFiles(names, language), command: names.command, tool: names.tool };
}

/** The raw-protocol scaffold (kept for python too, for people who want no SDK). */
export function rawFiles(names: ScaffoldNames, language: ScaffoldLanguage): ScaffoldFile[] {
  const program = { ts: "index.ts", python: "main.py", sh: "ext.sh" }[language];
  const text = { ts: typescript, python, sh: shell }[language](names);
  const languageName = { ts: "typescript", python: "python", sh: "sh" }[language];
  return [
    { path: "extension.json", text: manifest(names, `./${program}`, languageName), executable: false },
    { path: program, text, executable: true },
    { path: "README.md", text: readme(names, language, program), executable: false },
  ];
}
