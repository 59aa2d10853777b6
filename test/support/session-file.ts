/**
 * Writes a session file (the JSONL format of src/session/format.ts: a meta
 * row, then message rows) with `messages` alternating user / assistant
 * text messages, for tests and benchmarks that resume a long conversation
 * (`zot --session <file>`). Message i (1-based) reads `question NNNN …` or
 * `answer NNNN …` (NNNN zero-padded to 4 digits), an answer carrying a bit
 * of markdown (bold, inline code) so rendering is exercised.
 */
import { writeFileSync } from "node:fs";

export interface GeneratedSession {
  readonly path: string;
  readonly cwd: string;
  readonly messages: number;
  readonly provider?: string;
  readonly model?: string;
}

export const sessionText = (index: number): string => {
  const n = String(index).padStart(4, "0");
  return index % 2 === 1 ? `question ${n}: what does step ${n} do?` : `answer ${n}: step ${n} is **done**, see \`step-${n}.ts\`.`;
};

export function writeGeneratedSession(options: GeneratedSession): void {
  const started = new Date(Date.UTC(2025, 0, 1)).toISOString();
  const meta = {
    id: `generated-${options.messages}`,
    cwd: options.cwd,
    model: options.model ?? "claude-sonnet-4-5",
    provider: options.provider ?? "anthropic",
    started,
    version: "0.1.0",
  };
  const rows = [JSON.stringify({ type: "meta", meta })];
  for (let i = 1; i <= options.messages; i++) {
    const message = { role: i % 2 === 1 ? "user" : "assistant", content: [{ type: "text", text: sessionText(i) }], time: started };
    rows.push(JSON.stringify({ type: "message", message }));
  }
  writeFileSync(options.path, `${rows.join("\n")}\n`);
}
