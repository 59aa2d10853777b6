/**
 * Test helpers for the session store: a throwaway ZOT_HOME-like directory per
 * test (removed by removeTempDirs, support/temp.ts) and small message builders. Paths are passed
 * explicitly; process.env is never touched.
 */
import { join } from "node:path";
import { tempDir } from "../support/temp.ts";
import type { ContentBlock, Message, Role } from "../../src/providers/types.ts";
import { SessionWriter, type NewSessionOptions } from "../../src/session/index.ts";

export interface TempHome {
  readonly home: string;
  readonly sessionsRoot: string;
  readonly cwd: string;
}

export function tempHome(): TempHome {
  const home = tempDir("zot-session-test-");
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
