/**
 * The project's files for the `@` picker. Built lazily, in the background,
 * on the first `@`: `git ls-files --cached --others --exclude-standard -z`
 * when the cwd is in a git work tree (with `-c core.fsmonitor=false`: the
 * project's own git config must not name a command for zot to run — a
 * repository's `core.fsmonitor` is executed by `ls-files`, and a `true`
 * there starts a daemon that outlives zot), else a breadth-first walk of the cwd
 * that skips SKIPPED_DIRS (node_modules, .git, build output, caches…) and
 * does not follow symlinks. Bounded either way: at most MAX_FILES files and
 * BUILD_TIME_MS of work; past either the index stops there and says it is
 * partial. Directories are derived from the file paths. Entries are paths
 * relative to the cwd with "/" separators, directories ending in "/".
 *
 * matches(query): with a query naming a directory and ending in "/" (after
 * → in the picker), that directory's direct entries; else the best fuzzy
 * matches (fuzzyFilter) over every path, directories first on ties.
 */
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { fuzzyFilter } from "../../tui/index.ts";

export const MAX_FILES = 50_000;
export const BUILD_TIME_MS = 3_000;
export const MAX_MATCHES = 50;
export const SKIPPED_DIRS: ReadonlySet<string> = new Set([
  ".git", "node_modules", ".hg", ".svn", "dist", "build", "target", ".next", ".cache", "__pycache__", ".venv", "venv", ".tox", "coverage",
]);

/** Command-line config (it wins over every config file) so that a repository cannot make git run its commands. */
const GIT_SAFE_CONFIG = ["-c", "core.fsmonitor=false"] as const;

export interface FileEntry {
  /** Relative path; directories end in "/". */
  readonly path: string;
  readonly dir: boolean;
}

export type IndexState = "idle" | "building" | "ready";

async function gitFiles(cwd: string, deadline: number): Promise<string[] | undefined> {
  let proc: Bun.Subprocess<"ignore", "pipe", "ignore">;
  try {
    proc = Bun.spawn(["git", ...GIT_SAFE_CONFIG, "ls-files", "--cached", "--others", "--exclude-standard", "-z"], { cwd, stdin: "ignore", stdout: "pipe", stderr: "ignore" });
  } catch {
    return undefined;
  }
  const timer = setTimeout(() => proc.kill("SIGKILL"), Math.max(1, deadline - Date.now()));
  const files: string[] = [];
  const decoder = new TextDecoder();
  let pending = "";
  try {
    for await (const chunk of proc.stdout) {
      pending += decoder.decode(chunk, { stream: true });
      const parts = pending.split("\0");
      pending = parts.pop() ?? "";
      for (const part of parts) if (part !== "") files.push(part);
      if (files.length >= MAX_FILES) {
        proc.kill("SIGKILL");
        break;
      }
    }
  } finally {
    clearTimeout(timer);
  }
  const code = await proc.exited;
  if (code !== 0 && files.length === 0) return undefined;
  return files.slice(0, MAX_FILES);
}

async function walkFiles(cwd: string, deadline: number): Promise<string[]> {
  const files: string[] = [];
  const queue: string[] = [""];
  while (queue.length > 0 && files.length < MAX_FILES && Date.now() < deadline) {
    const rel = queue.shift() as string;
    let entries: import("node:fs").Dirent[];
    try {
      entries = await readdir(join(cwd, rel), { withFileTypes: true });
    } catch {
      continue;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const path = rel === "" ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name)) queue.push(path);
      } else if (entry.isFile() || entry.isSymbolicLink()) {
        files.push(path);
        if (files.length >= MAX_FILES) break;
      }
    }
  }
  return files;
}

export class FileIndex {
  readonly #cwd: string;
  readonly #changed: () => void;
  #state: IndexState = "idle";
  #entries: FileEntry[] = [];
  #partial = false;
  #building: Promise<void> | undefined;

  constructor(cwd: string, changed: () => void = () => {}) {
    this.#cwd = cwd;
    this.#changed = changed;
  }

  get state(): IndexState {
    return this.#state;
  }

  /** The index stopped at MAX_FILES or BUILD_TIME_MS. */
  get partial(): boolean {
    return this.#partial;
  }

  get size(): number {
    return this.#entries.length;
  }

  /** Starts building (once); resolves when the index is ready. */
  build(): Promise<void> {
    this.#building ??= this.#build();
    return this.#building;
  }

  async #build(): Promise<void> {
    this.#state = "building";
    const deadline = Date.now() + BUILD_TIME_MS;
    const files = (await gitFiles(this.#cwd, deadline)) ?? (await walkFiles(this.#cwd, deadline));
    this.#partial = files.length >= MAX_FILES || Date.now() >= deadline;
    const dirs = new Set<string>();
    for (const file of files) {
      let slash = file.lastIndexOf("/");
      while (slash > 0) {
        const dir = file.slice(0, slash + 1);
        if (dirs.has(dir)) break;
        dirs.add(dir);
        slash = file.lastIndexOf("/", slash - 1);
      }
    }
    const sortedDirs = [...dirs].sort();
    this.#entries = [...sortedDirs.map((path) => ({ path, dir: true })), ...files.map((path) => ({ path, dir: false }))];
    this.#state = "ready";
    this.#changed();
  }

  matches(query: string): FileEntry[] {
    if (this.#state !== "ready") return [];
    if (query === "" || (query.endsWith("/") && this.#entries.some((entry) => entry.dir && entry.path === query))) {
      return this.#entries.filter((entry) => isChildOf(entry.path, query)).slice(0, MAX_MATCHES * 4);
    }
    return fuzzyFilter(query, this.#entries, (entry) => entry.path, MAX_MATCHES);
  }
}

/** A direct child of `dir` ("" = the project root). */
function isChildOf(path: string, dir: string): boolean {
  if (!path.startsWith(dir) || path === dir) return false;
  const rest = path.slice(dir.length);
  const slash = rest.indexOf("/");
  return slash < 0 || slash === rest.length - 1;
}
