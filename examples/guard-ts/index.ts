// A guardrail on the TypeScript SDK (sdk/typescript): refuses dangerous bash commands, rewrites
// `git push --force` to `--force-with-lease`, redacts secrets from tool results and from the
// assistant's visible text, and counts turns. Fails closed: if it does not answer in time, zot blocks.
import { Extension } from "../../sdk/typescript/src/index.ts";

const DANGER = [/\brm\s+-rf\s+\/(\s|$)/, /\bmkfs\b/, /:\(\)\s*\{\s*:\|:&\s*\};:/];
const SECRET = /\b(sk-[A-Za-z0-9_-]{8,}|AKIA[0-9A-Z]{16})\b/g;

const ext = new Extension("guard-ts", "1.0.0", { onTimeout: "deny" });
let turns = 0;

ext.interceptToolCall((call) => {
  if (call.tool_name !== "bash") return;
  const command = String(call.tool_args.command ?? "");
  const pattern = DANGER.find((danger) => danger.test(command));
  if (pattern) return { block: true, reason: `refused by guard-ts: matches ${pattern}` };
  if (/\bgit\s+push\b.*--force(\s|$)/.test(command)) return { modified_args: { ...call.tool_args, command: command.replace(/--force(\s|$)/, "--force-with-lease$1") } };
  return;
});

const redact = (text: string): string => text.replace(SECRET, "[redacted]");

ext.interceptToolResult((event) => {
  const blocks = event.result.content;
  const content = blocks.map((block) => (block.type === "text" ? { ...block, text: redact(block.text) } : block));
  const changed = content.some((block, i) => block.type === "text" && block.text !== (blocks[i] as { text: string }).text);
  return changed ? { content } : undefined;
});

ext.interceptAssistantMessage((message) => (redact(message.text) !== message.text ? { replace_text: redact(message.text) } : undefined));

ext.on("turn_start", () => {
  turns += 1;
});
ext.on("session_end", () => ext.log(`session ended after ${turns} turn(s)`));

await ext.run();
