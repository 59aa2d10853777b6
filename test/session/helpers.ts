/**
 * Test helpers for the session store: a throwaway ZOT_HOME-like directory per
 * test (removed afterwards) and small message builders. Paths are passed
 * explicitly; process.env is never touched.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "bun:test";
import type { ContentBlock, Message, Role } from "../../src/providers/types.ts";
import { SessionWriter, type NewSessionOptions } from "../../src/session/index.ts";

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

export interface TempHome {
  readonly home: string;
  readonly sessionsRoot: string;
  readonly cwd: string;
}

export function tempHome(): TempHome {
  const home = mkdtempSync(join(tmpdir(), "zot-session-test-"));
  made.push(home);
  return { home, sessionsRoot: join(home, "sessions"), cwd: join(home, "project") };
}

export function newWriter(home: TempHome, extra: Partial<NewSessionOptions> = {}): SessionWriter {
  return SessionWriter.create({ cwd: home.cwd, model: "m-1", provider: "anthropic", sessionsRoot: home.sessionsRoot, version: "9.9.9", ...extra });
}

const TIME = "2025-01-02T03:04:05.000Z";

export function message(role: Role, ...content: ContentBlock[]): Message {
  return { role, content, time: TIME };
}

export function userText(text: string): Message {
  return message("user", { type: "text", text });
}

export function assistantCalls(...ids: string[]): Message {
  return message("assistant", ...ids.map((id): ContentBlock => ({ type: "tool_call", id, name: "read", arguments: `{"path":"${id}"}` })));
}

export function toolResults(...ids: string[]): Message {
  return message("tool", ...ids.map((id): ContentBlock => ({ type: "tool_result", call_id: id, content: [{ type: "text", text: `result ${id}` }], is_error: false })));
}
