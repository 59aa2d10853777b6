/**
 * The session a headless run reads and writes (reference notes §4.8):
 * --no-session → none; --session <path> → that file (locked, loaded with
 * repair, then appended to); --continue → the newest session of this cwd
 * holding a message (none → a new one, with a note on stderr); --resume → a
 * numbered picker on stderr (sanitized on a terminal: titles come from
 * session files) reading the choice from stdin (a terminal or a pipe);
 * --fork <path> → a new session holding a copy of that one
 * (session/fork.ts); else a new file (a swarm child's: under its own
 * sessions root, meta `parent` = the parent conversation and `agent_id`). A session another zot is writing is
 * refused (SessionError "busy", naming the `--fork` remedy). $ZOT_HOME and
 * the sessions directories are kept private (0700). Empty, stale sessions of
 * this cwd's directory are pruned (never our own). A new session file that
 * cannot be created (a read-only or full $ZOT_HOME) is an error that names
 * --no-session. The persistence callbacks
 * append every message and usage row as the turn goes; a failing write is
 * reported once on stderr and the run goes on. close() closes the writer and
 * releases its lock (a new file that got no message is deleted);
 * switchTo() (interactive mode) moves persistence to another writer and
 * closes the current one the same way.
 */
import { ZotError, errorMessage } from "../common/errors.ts";
import type { ZotPaths } from "../common/home.ts";
import { tightenPath, PRIVATE_DIR_MODE } from "../common/private.ts";
import { forStderr } from "../common/terminal-text.ts";
import type { AgentPersistence, CompactionPersistRecord } from "../agent/types.ts";
import type { Message, Usage } from "../providers/types.ts";
// Straight from the modules a new session uses, not the barrel (session/index.ts): listing, picking
// and forking are loaded only when --continue / --resume / --fork asks (their own chunks), and the
// barrel's import / rename / delete code stays out of the headless chunk.
import type { LoadedSession } from "../session/load.ts";
import { sessionDirForCwd } from "../session/paths.ts";
import { pruneEmptySessions } from "../session/prune.ts";
import { SessionWriter } from "../session/writer.ts";
import { SessionError } from "../session/errors.ts";
import type { SessionChoice } from "./options.ts";
import { unlessAborted } from "./prompt-input.ts";

export interface HeadlessSession {
  /** The session written to now; undefined with --no-session. */
  readonly writer: SessionWriter | undefined;
  /** The resumed transcript (--session, --continue, --resume), if any. */
  readonly loaded: LoadedSession | undefined;
  readonly persistence: AgentPersistence | undefined;
  /** Settles when pruning of stale empty sessions has finished. */
  readonly pruned: Promise<void>;
  close(): void;
  /**
   * Interactive mode's session switch (/sessions, /session fork|import,
   * /clear): from now on rows go to `next`, and the current writer is closed
   * (its lock released; a new file that got no message is deleted). False
   * with --no-session (nothing is written; `next` is left open).
   */
  switchTo(next: SessionWriter): boolean;
}

export interface SessionSetupInput {
  readonly choice: SessionChoice;
  readonly cwd: string;
  readonly paths: ZotPaths;
  readonly provider: string;
  readonly model: string;
  readonly warn: (line: string) => void;
  readonly signal: AbortSignal;
  /** A swarm child's new session: under this sessions root, linked to the parent conversation. */
  readonly subagent?: SubagentSessionLink;
}

export interface SubagentSessionLink {
  readonly sessionsRoot: string;
  readonly parentSessionId: string;
  readonly agentId: string;
}

const NO_SESSION: HeadlessSession = {
  writer: undefined,
  loaded: undefined,
  persistence: undefined,
  pruned: Promise.resolve(),
  close: () => {},
  switchTo: () => false,
};

async function pickResumePath(input: SessionSetupInput): Promise<string | undefined> {
  // The choice may come from a pipe (`echo 2 | zot -p -r "…"`, as with the original zot); a closed or used-up stdin picks nothing.
  const { listSessions, pickSession } = await import("../session/list.ts");
  const sessions = await listSessions(sessionDirForCwd(input.cwd, input.paths.sessions));
  if (sessions.length === 0) return undefined;
  // Titles and first prompts come from session files: sanitized on a terminal like every stderr line.
  const output = { write: (text: string) => process.stderr.write(forStderr(text)) };
  const picked = await unlessAborted(pickSession(sessions, { input: process.stdin, output }), input.signal);
  if (picked === undefined) throw new ZotError("session.resume_cancelled", "no session picked");
  return picked.path;
}

/** The existing file to resume, or undefined for a new session. */
async function existingPath(input: SessionSetupInput): Promise<string | undefined> {
  switch (input.choice.kind) {
    case "path":
      return input.choice.path;
    case "continue": {
      const { latestSession } = await import("../session/list.ts");
      const latest = await latestSession(input.cwd, input.paths.sessions);
      if (latest === undefined) input.warn("zot: no previous session in this directory; starting a new one\n");
      return latest?.path;
    }
    case "resume": {
      const path = await pickResumePath(input);
      if (path === undefined) input.warn("zot: no sessions to resume in this directory; starting a new one\n");
      return path;
    }
    default:
      return undefined;
  }
}

/** Persistence into whichever writer `current()` is (a session switch changes it and clears `failed`). */
function persistenceFor(current: () => SessionWriter, warn: (line: string) => void): { persistence: AgentPersistence; reset(): void } {
  let failed = false;
  const guard = <T>(write: () => T): T | undefined => {
    if (failed) return undefined;
    try {
      return write();
    } catch (err) {
      failed = true;
      warn(`zot: warning: the session is no longer saved: ${errorMessage(err)}\n`);
      return undefined;
    }
  };
  const persistence: AgentPersistence = {
    onMessage: (message: Message) => guard(() => current().appendMessage(message)),
    onUsage: (turn: Usage, cumulative: Usage) => void guard(() => current().appendUsage(turn, cumulative)),
    onCompaction: (record: CompactionPersistRecord) =>
      void guard(() =>
        current().appendCompaction({ summary: record.summaryMessage, keptFrom: record.keptFrom, tokensBefore: record.tokensBefore }),
      ),
  };
  return { persistence, reset: () => (failed = false) };
}

function reportWarnings(loaded: LoadedSession, warn: (line: string) => void): void {
  for (const warning of loaded.warnings) {
    const where = warning.line > 0 ? `${loaded.path}:${warning.line}` : loaded.path;
    warn(`zot: warning: ${where}: ${warning.message}\n`);
  }
}

/** Tightens $ZOT_HOME and the sessions directories that exist (the writer creates missing ones 0700). */
function tightenSessionDirs(input: SessionSetupInput): void {
  for (const dir of [input.paths.home, input.paths.sessions, sessionDirForCwd(input.cwd, input.paths.sessions)]) {
    tightenPath(dir, PRIVATE_DIR_MODE);
  }
}

const NO_SESSION_HINT = "; pass --no-session to run without saving the session (or set ZOT_HOME to a writable directory)";

/** A new session file; one that cannot be created (read-only or full $ZOT_HOME) says how to run without it. */
function createSession(options: Parameters<typeof SessionWriter.create>[0]): SessionWriter {
  try {
    return SessionWriter.create(options);
  } catch (err) {
    if (!(err instanceof SessionError) || (err.kind !== "write" && err.kind !== "unreadable")) throw err;
    const detail = err.message.startsWith(`${err.path}: `) ? err.message.slice(err.path.length + 2) : err.message;
    throw new SessionError(err.kind, err.path, `${detail}${NO_SESSION_HINT}`, err.context, { cause: err.cause });
  }
}

export async function openHeadlessSession(input: SessionSetupInput): Promise<HeadlessSession> {
  if (input.choice.kind === "none") return NO_SESSION;
  tightenSessionDirs(input);
  const link = input.subagent;
  const newSession = {
    cwd: input.cwd, provider: input.provider, model: input.model, sessionsRoot: link?.sessionsRoot ?? input.paths.sessions,
    ...(link !== undefined ? { parent: link.parentSessionId, agentId: link.agentId } : {}),
  };
  let loaded: LoadedSession | undefined;
  let writer: SessionWriter;
  if (input.choice.kind === "fork") {
    const { forkSession } = await import("../session/fork.ts");
    ({ writer, loaded } = forkSession(input.choice.path, newSession));
    input.warn(`zot: forked ${input.choice.path} into ${writer.path}\n`);
    reportWarnings(loaded, input.warn);
  } else {
    const path = await existingPath(input);
    if (path !== undefined) {
      ({ writer, loaded } = SessionWriter.resume(path));
      reportWarnings(loaded, input.warn);
    } else {
      writer = createSession(newSession);
    }
  }
  if (loaded !== undefined && (writer.meta.provider !== input.provider || writer.meta.model !== input.model)) {
    writer.appendMeta({ provider: input.provider, model: input.model });
  }
  const pruned = pruneEmptySessions(sessionDirForCwd(input.cwd, newSession.sessionsRoot), { keep: [writer.path] }).then(
    () => undefined,
    () => undefined,
  );
  let current = writer;
  const closeWriter = (closing: SessionWriter): void => {
    try {
      closing.close();
    } catch (err) {
      input.warn(`zot: warning: ${errorMessage(err)}\n`);
    }
  };
  const saved = persistenceFor(() => current, input.warn);
  return {
    get writer() {
      return current;
    },
    loaded,
    persistence: saved.persistence,
    pruned,
    close: () => closeWriter(current),
    switchTo: (next) => {
      if (next === current) return true;
      const previous = current;
      current = next;
      saved.reset();
      closeWriter(previous);
      return true;
    },
  };
}
