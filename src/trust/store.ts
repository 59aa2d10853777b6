/**
 * The trust store: $ZOT_HOME/trust.json (0600), one entry per project
 * directory keyed by its canonical real path:
 *   {"version":1,"projects":{"/real/path":{"decision":"trusted"|"denied",
 *    "fingerprint":"<sha256>","at":"<ISO time>","items":[{"kind","name","hash"}]}}}
 * `items` is what the fingerprint covered then, so a UI can say what changed.
 * Reading: a missing file is an empty store; a file that is not valid JSON
 * (parseJson) or not this shape (valibot) is "nothing trusted" plus a
 * warning naming the file. Writing is read-modify-write through an atomic
 * replace (common/atomic.ts) that refuses to rename over a file changed
 * since it was read (then re-reads and retries, up to 5 times). A corrupted
 * file (or one over MAX_STORE_BYTES, 8 MiB) is never overwritten silently: it is first copied to
 * trust.json.corrupt-<epoch ms> and the warning names the copy.
 */
import { copyFileSync, realpathSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import * as v from "valibot";
import { writeFileAtomic } from "../common/atomic.ts";
import { ZotError, systemErrorCode } from "../common/errors.ts";
import { describeJsonProblem, parseJson } from "../common/json.ts";
import { PRIVATE_FILE_MODE, ensurePrivateDir, tightenPath } from "../common/private.ts";
import { firstProblem, describeProblem } from "../common/validation.ts";
import type { FingerprintItem, StoredItem } from "./fingerprint.ts";
import { NotRegularFileError, readRegularText } from "../common/regular-file.ts";

export type TrustDecision = "trusted" | "denied";

const ItemSchema = v.object({ kind: v.picklist(["extension", "mcp"]), name: v.string(), hash: v.string() });
const EntrySchema = v.object({
  decision: v.picklist(["trusted", "denied"], 'expected "trusted" or "denied"'),
  fingerprint: v.string("expected a string"),
  at: v.string("expected a string"),
  items: v.optional(v.array(ItemSchema), []),
});
const StoreSchema = v.object({ version: v.literal(1, "expected 1"), projects: v.record(v.string(), EntrySchema) });

export type TrustEntry = v.InferOutput<typeof EntrySchema>;

export interface TrustStoreRead {
  readonly projects: Readonly<Record<string, TrustEntry>>;
  /** Set when the file exists but is unusable (treated as nothing trusted). */
  readonly warning?: string;
  /** The text read (undefined: no file). */
  readonly text: string | undefined;
}

export function trustStorePath(home: string): string {
  return join(home, "trust.json");
}

/** The key of a project directory: its canonical real path (the resolved path when it does not exist). */
export function projectKey(dir: string): string {
  const absolute = resolve(dir);
  try {
    return realpathSync(absolute);
  } catch {
    return absolute;
  }
}

/** A larger trust.json is not read (treated as corrupted). */
export const MAX_STORE_BYTES = 8 * 1024 * 1024;

function readText(file: string): string | undefined {
  try {
    if (statSync(file).size > MAX_STORE_BYTES) return TOO_LARGE;
    return readRegularText(file);
  } catch (err) {
    if (systemErrorCode(err) === "ENOENT") return undefined;
    const reason = err instanceof NotRegularFileError ? "not a regular file" : (systemErrorCode(err) ?? "error");
    throw new ZotError("trust_store", `${file} cannot be read (${reason})`, { file }, { cause: err });
  }
}

/** Stands for the text of a store over MAX_STORE_BYTES (compared by identity only). */
const TOO_LARGE = "\u0000too large\u0000";

function parseStore(file: string, text: string): TrustStoreRead {
  const unusable = (why: string): TrustStoreRead => ({ projects: {}, text, warning: `${file} ${why}; treated as nothing trusted` });
  if (text === TOO_LARGE) return unusable(`is larger than ${MAX_STORE_BYTES / 1024 / 1024} MiB`);
  const parsed = parseJson(text);
  if (!parsed.ok) return unusable(`is not valid JSON (${describeJsonProblem(parsed.problem)})`);
  const result = v.safeParse(StoreSchema, parsed.value);
  if (!result.success) return unusable(`is not a trust store (${describeProblem(firstProblem(result.issues))})`);
  return { projects: result.output.projects, text };
}

export function readTrustStore(file: string): TrustStoreRead {
  const text = readText(file);
  if (text === undefined) return { projects: {}, text };
  return parseStore(file, text);
}

export function storedItems(items: readonly FingerprintItem[]): StoredItem[] {
  return items.map((item) => ({ kind: item.kind, name: item.name, hash: item.hash }));
}

class StoreChanged extends Error {}

/**
 * Applies `change` to the projects map and writes the store atomically (0600).
 * Returns the warnings to show (a corrupted file's backup).
 */
export async function updateTrustStore(file: string, change: (projects: Record<string, TrustEntry>) => void): Promise<string[]> {
  const warnings: string[] = [];
  for (let attempt = 0; ; attempt++) {
    const read = readTrustStore(file);
    if (read.warning !== undefined && read.text !== undefined) {
      const backup = `${file}.corrupt-${Date.now()}`;
      copyFileSync(file, backup);
      tightenPath(backup);
      warnings.push(`${read.warning}; kept a copy as ${backup}`);
    }
    const projects: Record<string, TrustEntry> = { ...read.projects };
    change(projects);
    const text = `${JSON.stringify({ version: 1, projects }, null, 2)}\n`;
    ensurePrivateDir(join(file, ".."));
    try {
      await writeFileAtomic(file, text, {
        mode: PRIVATE_FILE_MODE,
        verify: () => {
          if (readText(file) !== read.text) throw new StoreChanged();
        },
      });
      return warnings;
    } catch (err) {
      if (!(err instanceof StoreChanged) || attempt >= 4) {
        if (err instanceof StoreChanged) throw new ZotError("trust_store", `${file} kept changing while zot wrote it; nothing recorded`, { file });
        throw err;
      }
    }
  }
}

export function recordDecision(file: string, dir: string, decision: TrustDecision, fingerprint: string, items: readonly FingerprintItem[]): Promise<string[]> {
  const key = projectKey(dir);
  return updateTrustStore(file, (projects) => {
    projects[key] = { decision, fingerprint, at: new Date().toISOString(), items: storedItems(items) };
  });
}

/** Removes the project's entry; resolves to whether there was one (and the warnings). */
export async function forgetProject(file: string, dir: string): Promise<{ removed: boolean; warnings: string[] }> {
  const key = projectKey(dir);
  let removed = false;
  const warnings = await updateTrustStore(file, (projects) => {
    removed = Object.hasOwn(projects, key);
    delete projects[key];
  });
  return { removed, warnings };
}
