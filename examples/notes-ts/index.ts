// A TypeScript extension written against extensions.md only: a command and a tool.
import { createInterface } from "node:readline";

const notes: string[] = [];
function send(frame: object): void {
  process.stdout.write(JSON.stringify(frame) + "\n");
}
send({ type: "hello", name: "notes-ts", version: "1.0.0", capabilities: ["commands", "tools"] });
const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
rl.on("line", (line) => {
  const frame = JSON.parse(line);
  if (frame.type === "hello_ack") {
    process.stderr.write(`[notes-ts] host cwd ${frame.cwd}\n`);
    send({ type: "register_command", name: "note", description: "append a note" });
    send({ type: "register_tool", name: "read_notes", description: "Read the notes.", schema: { type: "object", properties: {} } });
    send({ type: "ready" });
  } else if (frame.type === "command_invoked") {
    notes.push(frame.args ?? "");
    send({ type: "notify", level: "success", message: `saved note ${notes.length}` });
    send({ type: "command_response", id: frame.id, action: "display", display: `noted: ${frame.args ?? ""}` });
  } else if (frame.type === "tool_call") {
    send({ type: "tool_result", id: frame.id, content: [{ type: "text", text: notes.join("\n") || "(no notes)" }] });
  } else if (frame.type === "shutdown") {
    send({ type: "shutdown_ack" });
    rl.close();
  }
});
