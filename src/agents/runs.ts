/**
 * Run records of subagents: $ZOT_HOME/agents/runs/<agent_id>.json, one
 * small JSON object per agent (0600, directory 0700), rewritten atomically
 * (temp file + rename) when the run starts (`status: "running"`) and when it
 * returns (its terminal status, `ended`, the child's `session_path`).
 * Best-effort: a record that cannot be written does not fail the run.
 * listRunRecords() reads them back (newest first) for `zot agents`; reading
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
