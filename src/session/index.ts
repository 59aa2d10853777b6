/**
 * Public surface of the session store: file layout, the JSONL row format,
 * writing under a per-file lock (SessionWriter: create, resume, fork),
 * loading with repair in bounded memory (loadSession), listing and picking
 * (listSessions, latestSession, pickSession, restoredMessageCount), renaming,
 * deleting and importing (manage.ts, import.ts) and pruning of empty sessions.
 * See format.ts for the on-disk format and docs/sessions.md.
 */
export { SessionError, type SessionErrorKind } from "./errors.ts";
export { cwdHash, sessionDirForCwd, sessionFileName, SESSION_FILE_EXTENSION } from "./paths.ts";
export { parseRow, serializeRow, type SessionMeta, type SessionRow } from "./format.ts";
export type { SessionWarning } from "./scan.ts";
export { ABORTED_TOOL_RESULT_TEXT, repairMessages } from "./repair.ts";
export { loadSession, RESUME_BUDGET_BYTES, type LoadedSession, type LoadOptions } from "./load.ts";
export { INDEX_REFRESH_BYTES, SessionWriter, type CompactionRecord, type MetaUpdate, type NewSessionOptions, type ResumedSession } from "./writer.ts";
export { copySession, forkSession } from "./fork.ts";
export { importSession, type ImportTarget } from "./import.ts";
export { cleanTitle, deleteSession, renameSession, TITLE_MAX } from "./manage.ts";
export { restoredMessageCount } from "./restored.ts";
export { MAX_SESSION_LINE_BYTES } from "./lines.ts";
export {
  latestSession,
  listSessions,
  localTime,
  pickSession,
  sessionHead,
  sessionLabel,
  summarizeSession,
  type LatestSession,
  type PickerIO,
  type SessionSummary,
} from "./list.ts";
export { DEFAULT_PRUNE_MIN_AGE_MS, pruneEmptySessions, type PruneOptions } from "./prune.ts";
