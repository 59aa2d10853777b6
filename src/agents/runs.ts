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
 * stays "running". A file that is not JSON, or lacks a field (or has one of
 * the wrong type), is not a record: a warning for `zot agents`, an error for resume.
 */
import { readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
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

const RunRecordSchema = v.looseObject({
  agent_id: v.string(),
  agent_run_id: v.string(),
  name: v.string(),
  agent: v.optional(v.string()),
  description: v.string(),
  prompt: v.string(),
  parent_session_id: v.string(),
  cwd: v.string(),
  status: v.string(),
  started: v.string(),
  ended: v.optional(v.string()),
  session_path: v.optional(v.string()),
  error: v.optional(v.string()),
  runs: v.optional(v.number()),
  warm: v.optional(v.boolean()),
});

/** `text` as a run record (a JSON object with every RunRecord field of its type), else undefined. */
function parseRecord(text: string): RunRecord | undefined {
  const parsed = parseJson(text, MAX_JSON_DEPTH);
  return parsed.ok && v.is(RunRecordSchema, parsed.value) ? (parsed.value as RunRecord) : undefined;
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
  const record = parseRecord(text);
  if (record?.agent_id !== agentId) return { ok: false, error: `${path}: not a run record of ${agentId}` };
  return { ok: true, record };
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
      const record = parseRecord(text);
      if (record === undefined) throw new Error("not a run record");
      records.push(record);
    } catch (err) {
      warnings.push(`${path}: ${err instanceof Error ? err.message : String(err)}; skipped`);
    }
  }
  records.sort((a, b) => (a.started < b.started ? 1 : a.started > b.started ? -1 : 0));
  return { records, warnings };
}
