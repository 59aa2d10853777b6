/**
 * Changing the session in-process (the `/sessions` picker, `/session fork`,
 * `/session import`, `/clear`). switchSession(host, resumed) makes an opened
 * session (a writer holding its lock, and its loaded transcript) the
 * current one: the agent gets its transcript (the system prompt hook runs
 * again) and its cumulative usage, rows go to its file from now on, the
 * previous writer is closed (its lock released; a new file that got no
 * message is deleted), extensions get `session_end` (reason
 * `session_switch`) for the old conversation and `session_start` under the
 * new id, notes and overlays are cleared, and the screen and scrollback are
 * cleared and the conversation replayed into them (replay.ts), as `-c` shows
 * it. When the session was last used with another model, a meta row records
 * the current one (as a resume at startup does).
 *
 * startFreshSessionFile(host) is `/clear`'s part: a new, empty session file
 * in this directory takes over (the previous one is closed as above); cost
 * starts again at zero. Clearing does not close the conversation for
 * extensions (extensions.md: clearing messages does not), so no
 * session_end / session_start is sent and notifications keep the id the
 * conversation opened with until the next switch.
 *
 * A switch is refused while a turn runs, and with --no-session.
 */
import { errorMessage } from "../../common/errors.ts";
import { zotPaths } from "../../common/home.ts";
import { emptyUsage } from "../../providers/types.ts";
import { SessionWriter, type ResumedSession } from "../../session/index.ts";
import type { CommandHost } from "./command-types.ts";
import { replayConversation } from "./replay.ts";

/** Why a session cannot be switched now; undefined when it can. */
export function switchRefusal(host: CommandHost): string | undefined {
  if (host.runtime.session.writer === undefined) return "sessions are off in this run (--no-session)";
  if (host.runtime.agent.busy) return "a turn is running; stop it first (Esc)";
  return undefined;
}

/** Options for a new session file of this run's directory with the current model. */
export function newSessionOptions(host: CommandHost): { cwd: string; provider: string; model: string; sessionsRoot: string } {
  const { model } = host.runtime.agent;
  return { cwd: host.runtime.cwd, provider: model.provider, model: model.id, sessionsRoot: zotPaths().sessions };
}

function closeQuietly(writer: SessionWriter): void {
  try {
    writer.close();
  } catch {
    // it held no conversation of ours
  }
}

/**
 * Makes `resumed` the current session (see the header); returns false (and
 * closes it) when refused. The chat then says `resumed N message(s) from
 * <path>` (verb "resumed") or `<verb> <path>: N message(s)`.
 */
export async function switchSession(host: CommandHost, resumed: ResumedSession, verb: string): Promise<boolean> {
  const refused = switchRefusal(host);
  const { writer, loaded } = resumed;
  if (refused !== undefined) {
    closeQuietly(writer);
    host.chat.error(refused);
    return false;
  }
  const { agent, session, extensions } = host.runtime;
  const replaced = agent.replaceMessages(loaded.messages, loaded.messageRows);
  if (replaced !== undefined) {
    closeQuietly(writer);
    host.chat.error(replaced.message);
    return false;
  }
  agent.setCumulativeUsage(loaded.cumulativeUsage);
  agent.resetSystemPrompt();
  const { provider, id: model } = agent.model;
  if (writer.meta.provider !== provider || writer.meta.model !== model) {
    try {
      writer.appendMeta({ provider, model });
    } catch (err) {
      host.chat.warn(`zot: warning: ${errorMessage(err)}`);
    }
  }
  session.switchTo(writer);
  await extensions?.bridge.switchSession(writer.id);
  host.conversationReplaced();
  if (loaded.messages.length > 0) replayConversation(host.chat, loaded.messages);
  const count = `${loaded.messages.length} message(s)`;
  host.chat.info(verb === "resumed" ? `resumed ${count} from ${writer.path}` : `${verb} ${writer.path}: ${count}`);
  for (const warning of loaded.warnings) {
    host.chat.warn(`zot: warning: ${warning.line > 0 ? `${loaded.path}:${warning.line}` : loaded.path}: ${warning.message}`);
  }
  return true;
}

/** `/clear`: a new, empty session file takes over (nothing happens with --no-session). */
export function startFreshSessionFile(host: CommandHost): void {
  const { session, agent } = host.runtime;
  if (session.writer === undefined) return;
  let writer: SessionWriter;
  try {
    writer = SessionWriter.create(newSessionOptions(host));
  } catch (err) {
    host.chat.warn(`zot: warning: no new session file: ${errorMessage(err)}; the conversation goes on in ${session.writer.path}`);
    return;
  }
  session.switchTo(writer);
  agent.setCumulativeUsage(emptyUsage());
}
