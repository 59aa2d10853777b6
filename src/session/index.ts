/**
 * Public surface of the session store: file layout, the JSONL row format,
 * writing (SessionWriter), loading with repair (loadSession), listing and
 * picking (listSessions, latestSession, pickSession) and pruning of empty
 * sessions. See format.ts for the on-disk format.
 */
export { SessionError, type SessionErrorKind } from "./errors.ts";
export { cwdHash, sessionDirForCwd, sessionFileName, SESSION_FILE_EXTENSION } from "./paths.ts";
export { parseRow, serializeRow, type SessionMeta, type SessionRow } from "./format.ts";
export type { SessionWarning } from "./scan.ts";
export { ABORTED_TOOL_RESULT_TEXT, repairMessages } from "./repair.ts";
export { loadSession, type LoadedSession, type LoadOptions } from "./load.ts";
export { SessionWriter, type CompactionRecord, type MetaUpdate, type NewSessionOptions } from "./writer.ts";
export { latestSession, listSessions, pickSession, sessionLabel, type PickerIO, type SessionSummary } from "./list.ts";
export { DEFAULT_PRUNE_MIN_AGE_MS, pruneEmptySessions, type PruneOptions } from "./prune.ts";
