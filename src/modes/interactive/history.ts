/**
 * Prompt history per project, kept across runs: one private file per
 * project directory, `$ZOT_HOME/history/<sha256(cwd) first 24 hex>.json`
 * (`{"cwd": "...", "entries": ["oldest", ..., "newest"]}`), directory 0700,
 * file 0600. Bounded: the newest MAX_ENTRIES prompts, each at most
 * MAX_ENTRY_CHARS characters (a longer prompt is not kept); a file larger
 * than MAX_FILE_BYTES or that does not parse is ignored (and replaced on the
 * next write). A prompt equal to the newest entry is not added again.
 * Writes are atomic (temp file + rename) and serialized; each one re-reads
 * the file and appends, so two zot runs in one project keep both their
 * prompts. Failures are reported once through `warn` and never thrown.
 */
import { createHash } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../../common/atomic.ts";
import { errorMessage } from "../../common/errors.ts";
import { parseJson } from "../../common/json.ts";

export const MAX_ENTRIES = 500;
export const MAX_ENTRY_CHARS = 16 * 1024;
export const MAX_FILE_BYTES = 4 * 1024 * 1024;

export function historyPath(zotHome: string, cwd: string): string {
  const digest = createHash("sha256").update(cwd).digest("hex").slice(0, 24);
  return join(zotHome, "history", `${digest}.json`);
}

function readEntries(path: string): string[] {
  let text: string;
  try {
    if (statSync(path).size > MAX_FILE_BYTES) return [];
    text = readFileSync(path, "utf8");
  } catch {
    return [];
  }
  const parsed = parseJson(text);
  if (!parsed.ok || typeof parsed.value !== "object" || parsed.value === null) return [];
  const entries = (parsed.value as { entries?: unknown }).entries;
  if (!Array.isArray(entries)) return [];
  return entries.filter((entry): entry is string => typeof entry === "string" && entry.length <= MAX_ENTRY_CHARS).slice(-MAX_ENTRIES);
}

export class PromptHistory {
  readonly path: string;
  readonly #cwd: string;
  readonly #warn: (message: string) => void;
  #entries: string[];
  #writing: Promise<void> = Promise.resolve();
  #warned = false;

  /** Reads the project's history (synchronously: one small file). */
  constructor(options: { readonly zotHome: string; readonly cwd: string; readonly warn: (message: string) => void }) {
    this.path = historyPath(options.zotHome, options.cwd);
    this.#cwd = options.cwd;
    this.#warn = options.warn;
    this.#entries = readEntries(this.path);
  }

  /** Oldest first. */
  get entries(): readonly string[] {
    return this.#entries;
  }

  /** Records a submitted prompt; resolves once it is on disk (or failed). */
  add(text: string): Promise<void> {
    if (text.trim() === "" || text.length > MAX_ENTRY_CHARS || this.#entries.at(-1) === text) return this.#writing;
    this.#entries = [...this.#entries, text].slice(-MAX_ENTRIES);
    this.#writing = this.#writing.then(() => this.#write(text));
    return this.#writing;
  }

  /** Resolves once every write so far finished. */
  flush(): Promise<void> {
    return this.#writing;
  }

  async #write(text: string): Promise<void> {
    try {
      const dir = join(this.path, "..");
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      chmodSync(dir, 0o700);
      const onDisk = readEntries(this.path);
      const merged = onDisk.at(-1) === text ? onDisk : [...onDisk, text];
      await writeFileAtomic(this.path, `${JSON.stringify({ cwd: this.#cwd, entries: merged.slice(-MAX_ENTRIES) })}\n`, 0o600);
    } catch (err) {
      if (this.#warned) return;
      this.#warned = true;
      this.#warn(`zot: warning: prompt history not saved to ${this.path}: ${errorMessage(err)}`);
    }
  }
}
