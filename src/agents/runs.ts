/**
 * Run records of subagents: $ZOT_HOME/agents/runs/<agent_id>.json, one
 * small JSON object per agent (0600, directory 0700), rewritten atomically
 * (temp file + rename) when the run starts (`status: "running"`) and when it
 * returns (its terminal status, `ended`, the child's `session_path`).
 * Best-effort: a record that cannot be written does not fail the run.
 * A resumed agent keeps its file: the record is rewritten with the new
 * agent_run_id and `runs` counts the runs. readRunRecord() reads one back
 * (resume); listRunRecords() reads them all (newest first) for `zot agents`; reading
 * records replays no lifecycle event. A record of a zot that died mid-run
 * stays "running".
 */
import { readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { MAX_JSON_DEPTH, parseJson } from "../common/json.ts";
import { ensurePrivateDirs, PRIVATE_FILE_MODE } from "../common/private.ts";

export interface RunRecord {
  readonly agent_id: string;
  readonly agent_run_id: string;
  readonly name: string;
  readonly agent?: string;
  readonly description: string;
  readonly prompt: string;
  readonly parent_session_id: string;
  readonly cwd: string;
  readonly status: string;
  readonly started: string;
  readonly ended?: string;
  readonly session_path?: string;
  readonly error?: string;
  /** How many runs this agent had (1 for the first; a resume adds one). */
  readonly runs?: number;
  /** The latest run was handed to the warm spare (warm.ts) instead of a child spawned for it. */
  readonly warm?: boolean;
}

/** Records larger than this are not read back. */
export const MAX_RECORD_BYTES = 1024 * 1024;

export function writeRunRecord(dir: string, record: RunRecord): boolean {
  try {
    ensurePrivateDirs([join(dir, ".."), dir]);
    const path = join(dir, `${record.agent_id}.json`);
    const temp = `${path}.${process.pid}.tmp`;
    writeFileSync(temp, `${JSON.stringify(record)}\n`, { mode: PRIVATE_FILE_MODE });
    renameSync(temp, path);
    return true;
  } catch {
    return false;
  }
}

const AGENT_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** The record of `agentId`, or why there is none (a name that is no agent id never touches the disk). */
export function readRunRecord(dir: string, agentId: string): { readonly ok: true; readonly record: RunRecord } | { readonly ok: false; readonly error: string } {
  if (!AGENT_ID.test(agentId)) return { ok: false, error: `${JSON.stringify(agentId)} is not an agent id` };
  const path = join(dir, `${agentId}.json`);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return { ok: false, error: `no subagent run recorded as ${agentId} (zot agents lists them)` };
  }
  if (text.length > MAX_RECORD_BYTES) return { ok: false, error: `${path}: over ${MAX_RECORD_BYTES} bytes` };
  const parsed = parseJson(text, MAX_JSON_DEPTH);
  const value = parsed.ok ? parsed.value : undefined;
  if (typeof value !== "object" || value === null || (value as RunRecord).agent_id !== agentId) return { ok: false, error: `${path}: not a run record of ${agentId}` };
  return { ok: true, record: value as RunRecord };
}

export function listRunRecords(dir: string): { readonly records: RunRecord[]; readonly warnings: string[] } {
  const records: RunRecord[] = [];
  const warnings: string[] = [];
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => name.endsWith(".json"));
  } catch {
    return { records, warnings };
  }
  for (const name of names) {
    const path = join(dir, name);
    try {
      const text = readFileSync(path, "utf8");
      if (text.length > MAX_RECORD_BYTES) throw new Error("too large");
      const parsed = parseJson(text, MAX_JSON_DEPTH);
      const value = parsed.ok ? parsed.value : undefined;
      if (typeof value !== "object" || value === null || typeof (value as RunRecord).agent_id !== "string") throw new Error("not a run record");
      records.push(value as RunRecord);
    } catch (err) {
      warnings.push(`${path}: ${err instanceof Error ? err.message : String(err)}; skipped`);
    }
  }
  records.sort((a, b) => (a.started < b.started ? 1 : a.started > b.started ? -1 : 0));
  return { records, warnings };
}
