/**
 * `/sessions` (the picker: sessions-dialog.ts) and `/session fork | export
 * [path] | import <path> | tree`:
 *  - fork: a new session of this directory starting with a copy of this one
 *    (session/fork.ts: parent and fork_point recorded; the original file is
 *    only read) becomes the current one (session-switch.ts);
 *  - export [path]: the conversation as markdown and as `zot --json` JSONL
 *    (session-export.ts: files 0600, written atomically, never replacing a
 *    file; the session file is not touched);
 *  - import <path>: a session file or a --json transcript becomes a new
 *    session of this directory (session/import.ts) and the current one;
 *  - tree: this directory's sessions, forks under their source
 *    (session-tree.ts), in the help overlay (read-only).
 * Each says what it did (paths included) or why it could not in the chat.
 */
import { homedir } from "node:os";
import { resolve } from "node:path";
import { errorMessage } from "../../../common/errors.ts";
import { ZOT_VERSION } from "../../../common/version.ts";
import { forkSession, importSession, listSessions, sessionDirForCwd } from "../../../session/index.ts";
import { sessionTreeLines } from "../session-tree.ts";
import { exportConversation } from "../../session-export.ts";
import type { BuiltinCommand, CommandHost } from "../command-types.ts";
import { openSessionsPicker } from "../sessions-dialog.ts";
import { newSessionOptions, switchRefusal, switchSession } from "../session-switch.ts";

const SESSION_USAGE = "/session fork | export [path] | import <path> | tree";

function homeDir(): string {
  return process.env.HOME ?? homedir();
}

function userPath(host: CommandHost, text: string): string {
  const home = homeDir();
  const expanded = text === "~" ? home : text.startsWith("~/") ? `${home}/${text.slice(2)}` : text;
  return resolve(host.runtime.cwd, expanded);
}

async function fork(host: CommandHost): Promise<void> {
  const refused = switchRefusal(host);
  const current = host.runtime.session.writer;
  if (refused !== undefined || current === undefined) {
    host.chat.error(`/session fork: ${refused ?? "no session"}`);
    return;
  }
  const source = current.path;
  const resumed = forkSession(source, newSessionOptions(host));
  if (await switchSession(host, resumed, "forked into")) host.chat.info(`the original is unchanged: ${source}`);
}

async function exportCommand(host: CommandHost, target: string): Promise<void> {
  const { agent, session } = host.runtime;
  if (agent.messages.length === 0) {
    host.chat.warn("/session export: the conversation is empty; nothing to export");
    return;
  }
  const meta = session.writer?.meta ?? {
    id: crypto.randomUUID(),
    cwd: host.runtime.cwd,
    model: agent.model.id,
    provider: agent.model.provider,
    started: new Date().toISOString(),
    version: ZOT_VERSION,
  };
  const written = await exportConversation({ messages: agent.messages, meta, target, home: homeDir(), cwd: host.runtime.cwd });
  host.chat.success(`exported ${agent.messages.length} message(s) to ${written.markdownPath} and ${written.jsonlPath}`);
}

async function importCommand(host: CommandHost, argument: string): Promise<void> {
  if (argument === "") {
    host.chat.error("/session import: give the path of a session file or a zot --json transcript");
    return;
  }
  const refused = switchRefusal(host);
  if (refused !== undefined) {
    host.chat.error(`/session import: ${refused}`);
    return;
  }
  const source = userPath(host, argument);
  const { provider, id: model } = host.runtime.agent.model;
  const resumed = importSession(source, { cwd: host.runtime.cwd, sessionsRoot: newSessionOptions(host).sessionsRoot, provider, model });
  if (await switchSession(host, resumed, "imported into")) host.chat.info(`imported from ${source}`);
}

/** The original's tree of this directory's sessions (forks under their source), in the help overlay. */
async function treeCommand(host: CommandHost): Promise<void> {
  const { sessionsRoot, cwd } = newSessionOptions(host);
  const sessions = await listSessions(sessionDirForCwd(cwd, sessionsRoot));
  if (sessions.length === 0) {
    host.chat.info("/session tree: no session of this directory holds a message yet");
    return;
  }
  host.showHelp([`session tree (forks under their source):`, ...sessionTreeLines(sessions, host.runtime.session.writer?.path)]);
}

async function sessionCommand(host: CommandHost, args: string): Promise<void> {
  const trimmed = args.trim();
  const [sub = "", ...rest] = trimmed.split(/\s+/);
  const argument = trimmed.slice(sub.length).trim();
  try {
    switch (sub.toLowerCase()) {
      case "fork":
        if (rest.length > 0) host.chat.warn(`/session fork takes no argument; ignored: ${argument}`);
        return await fork(host);
      case "export":
        return await exportCommand(host, argument);
      case "import":
        return await importCommand(host, argument);
      case "tree":
        return await treeCommand(host);
      default:
        host.chat.error(sub === "" ? `usage: ${SESSION_USAGE}` : `/session: unknown subcommand "${sub}"; usage: ${SESSION_USAGE}`);
    }
  } catch (err) {
    host.chat.error(`/session ${sub}: ${errorMessage(err)}`);
  }
}

export const SESSIONS_COMMAND: BuiltinCommand = {
  name: "sessions",
  usage: "/sessions",
  description: "pick a session of this directory to resume (r rename, d delete)",
  immediate: false,
  run: (host) => openSessionsPicker(host),
};

export const SESSION_COMMAND: BuiltinCommand = {
  name: "session",
  usage: "/session …",
  description: "fork | export [path] | import <path> | tree",
  immediate: false,
  run: (host, args) => sessionCommand(host, args),
};
