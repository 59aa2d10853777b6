/**
 * What a project would run, as content hashes (the trust store compares them).
 *
 * Input: the project-local extensions the host's discovery would load
 * (built by src/ext/project-trust.ts from the discovery report, with the
 * exec resolved exactly as the host spawns it) and the project directory.
 * Per extension, its item hash covers:
 *   - extension.json (the manifest) as bytes;
 *   - the resolved exec target's bytes when it lies inside the extension
 *     directory (after resolving symlinks); an exec outside it (a bare name
 *     on PATH such as `python3`, an absolute path elsewhere) is covered by
 *     its resolved path only, not its content (it is the user's own program);
 *   - each `args` entry that names an existing regular file inside the
 *     extension directory (relative to it, as the host runs the program
 *     there), e.g. `main.py` in `exec: "python3", args: ["main.py"]`.
 * Plus one item for ./.zot/mcp.json when it exists (its bytes).
 * Each file contributes sha256(first HASH_LIMIT_BYTES bytes) and its size:
 * a larger file that changes only past 4 MiB without changing size is not
 * noticed. Files a program loads on its own (imports, data) are not covered.
 * The combined fingerprint is sha256 over the sorted item hashes.
 * Never throws for missing or unreadable files: they hash as "missing".
 */
import { closeSync, constants, fstatSync, readSync, realpathSync, statSync } from "node:fs";
import { basename, extname, isAbsolute, join, relative, sep } from "node:path";
import { openRegular } from "../common/regular-file.ts";

/** Bytes of each file that are hashed (its size is always included). */
export const HASH_LIMIT_BYTES = 4 * 1024 * 1024;

/** One project extension as discovery found it. */
export interface ExtensionToFingerprint {
  readonly name: string;
  /** Absolute extension directory. */
  readonly dir: string;
  readonly manifestPath: string;
  /** The manifest's exec as written (absent for skills-only / agents-only / theme bundles). */
  readonly exec?: string;
  /** The exec resolved as the host would spawn it; undefined when it does not resolve. */
  readonly execPath?: string;
  readonly args: readonly string[];
  /** The manifest's `language`, when given. */
  readonly language?: string;
}

export type FingerprintItemKind = "extension" | "mcp";

export interface FingerprintItem {
  readonly kind: FingerprintItemKind;
  /** Extension name, or ".zot/mcp.json". */
  readonly name: string;
  /** What runs: the command line (`python3 main.py`), "(bundle, not spawned)" or "MCP servers". */
  readonly exec: string;
  readonly language: string;
  readonly hash: string;
  /** The files whose content was hashed (absolute). */
  readonly files: readonly string[];
}

export interface ProjectFingerprint {
  readonly fingerprint: string;
  readonly items: readonly FingerprintItem[];
}

/** A previously trusted item, as the store keeps it. */
export interface StoredItem {
  readonly kind: FingerprintItemKind;
  readonly name: string;
  readonly hash: string;
}

export interface ItemChanges {
  readonly added: readonly string[];
  readonly changed: readonly string[];
  readonly removed: readonly string[];
}

export function mcpConfigFile(projectDir: string): string {
  return join(projectDir, ".zot", "mcp.json");
}

function sha256(text: string | Uint8Array): string {
  return new Bun.CryptoHasher("sha256").update(text).digest("hex");
}

/** The first bytes of a regular file (at most `limit`) and its size; undefined when it is not a readable regular file. */
function readHead(path: string, limit: number): { head: Uint8Array; size: number } | undefined {
  let fd: number | undefined;
  try {
    fd = openRegular(path, constants.O_RDONLY);
    const stats = fstatSync(fd);
    const head = new Uint8Array(Math.min(limit, stats.size));
    let filled = 0;
    while (filled < head.length) {
      const read = readSync(fd, head, filled, head.length - filled, filled);
      if (read <= 0) break;
      filled += read;
    }
    return { head: head.subarray(0, filled), size: stats.size };
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** `sha256:size` of a file's first HASH_LIMIT_BYTES, or "missing". */
export function hashFile(path: string): string {
  const read = readHead(path, HASH_LIMIT_BYTES);
  return read === undefined ? "missing" : `${sha256(read.head)}:${read.size}`;
}

function realPath(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/** The real path of `path` when it is a regular file inside `dir` (symlinks resolved), else undefined. */
function fileInside(dir: string, path: string): string | undefined {
  const realDir = realPath(dir);
  const real = realPath(path);
  if (realDir === undefined || real === undefined) return undefined;
  const rel = relative(realDir, real);
  if (rel === "" || rel.startsWith("..") || isAbsolute(rel) || rel.split(sep)[0] === "..") return undefined;
  try {
    return statSync(real).isFile() ? real : undefined;
  } catch {
    return undefined;
  }
}

const LANGUAGE_BY_SUFFIX: Readonly<Record<string, string>> = {
  ".py": "python", ".ts": "typescript", ".mts": "typescript", ".tsx": "typescript", ".js": "javascript", ".mjs": "javascript",
  ".cjs": "javascript", ".sh": "shell", ".bash": "shell", ".rb": "ruby", ".pl": "perl", ".lua": "lua", ".php": "php",
};

const LANGUAGE_BY_PROGRAM: readonly (readonly [RegExp, string])[] = [
  [/^python[0-9.]*$|^uv$|^pipx$/, "python"], [/^(bun|deno|tsx|ts-node)$/, "typescript"], [/^(node|npx)$/, "javascript"],
  [/^(sh|bash|dash|zsh|ksh)$/, "shell"], [/^ruby$/, "ruby"], [/^perl$/, "perl"], [/^go$/, "go"], [/^cargo$/, "rust"],
];

function languageOfProgram(program: string): string | undefined {
  const name = basename(program);
  return LANGUAGE_BY_PROGRAM.find(([pattern]) => pattern.test(name))?.[1];
}

/** Manifest `language`, else a script's suffix, else the exec's shebang, else the interpreter's name, else ELF/Mach-O → "binary". */
function guessLanguage(extension: ExtensionToFingerprint, execInside: string | undefined, scripts: readonly string[]): string {
  if (extension.language !== undefined && extension.language.trim() !== "") return extension.language;
  for (const file of [...scripts, ...(execInside === undefined ? [] : [execInside])]) {
    const bySuffix = LANGUAGE_BY_SUFFIX[extname(file).toLowerCase()];
    if (bySuffix !== undefined) return bySuffix;
  }
  if (execInside !== undefined) {
    const head = readHead(execInside, 256)?.head ?? new Uint8Array();
    const text = new TextDecoder().decode(head);
    if (text.startsWith("#!")) {
      const words = (text.slice(2).split("\n")[0] ?? "").trim().split(/\s+/);
      const program = basename(words[0] ?? "") === "env" ? words.find((word, index) => index > 0 && !word.startsWith("-")) : words[0];
      return (program === undefined ? undefined : languageOfProgram(program)) ?? "script";
    }
    if ((head[0] === 0x7f && text.startsWith("\x7fELF")) || (head[0] === 0xcf && head[1] === 0xfa) || (head[0] === 0xfe && head[1] === 0xed)) return "binary";
  }
  if (extension.exec !== undefined) return languageOfProgram(extension.exec) ?? "unknown";
  return "-";
}

function extensionItem(extension: ExtensionToFingerprint): FingerprintItem {
  const files: string[] = [extension.manifestPath];
  const parts = [`manifest ${hashFile(extension.manifestPath)}`];
  const execInside = extension.execPath === undefined ? undefined : fileInside(extension.dir, extension.execPath);
  if (extension.exec !== undefined) {
    if (execInside !== undefined) {
      files.push(execInside);
      parts.push(`exec ${relative(realPath(extension.dir) ?? extension.dir, execInside)} ${hashFile(execInside)}`);
    } else parts.push(`exec-path ${extension.execPath ?? `unresolved:${extension.exec}`}`);
  }
  const scripts: string[] = [];
  if (extension.exec !== undefined) {
    for (const arg of extension.args) {
      const inside = fileInside(extension.dir, isAbsolute(arg) ? arg : join(extension.dir, arg));
      if (inside === undefined || inside === execInside || scripts.includes(inside)) continue;
      scripts.push(inside);
      files.push(inside);
      parts.push(`arg ${arg} ${hashFile(inside)}`);
    }
  }
  const exec = extension.exec === undefined ? "(bundle, not spawned)" : [extension.exec, ...extension.args].join(" ");
  return { kind: "extension", name: extension.name, exec, language: guessLanguage(extension, execInside, scripts), hash: sha256(parts.join("\n")), files };
}

/** The fingerprint of what `projectDir` would run: its project extensions and ./.zot/mcp.json. */
export function fingerprintProject(projectDir: string, extensions: readonly ExtensionToFingerprint[]): ProjectFingerprint {
  const items: FingerprintItem[] = [...extensions].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map(extensionItem);
  const mcp = mcpConfigFile(projectDir);
  const mcpHash = hashFile(mcp);
  if (mcpHash !== "missing") items.push({ kind: "mcp", name: ".zot/mcp.json", exec: "MCP servers", language: "-", hash: sha256(mcpHash), files: [mcp] });
  const fingerprint = sha256(items.map((item) => `${item.kind}\0${item.name}\0${item.hash}`).join("\n"));
  return { fingerprint, items };
}

/** What changed between a trusted item list and the current one (names; mcp.json by its path). */
export function compareItems(previous: readonly StoredItem[], current: readonly StoredItem[]): ItemChanges {
  const key = (item: StoredItem): string => `${item.kind}\0${item.name}`;
  const before = new Map(previous.map((item) => [key(item), item]));
  const now = new Map(current.map((item) => [key(item), item]));
  const added = current.filter((item) => !before.has(key(item))).map((item) => item.name);
  const changed = current.filter((item) => before.has(key(item)) && before.get(key(item))!.hash !== item.hash).map((item) => item.name);
  const removed = previous.filter((item) => !now.has(key(item))).map((item) => item.name);
  return { added, changed, removed };
}

/** "a changed, b added, c removed" ("" when nothing changed). */
export function describeChanges(changes: ItemChanges): string {
  return [
    ...changes.changed.map((name) => `${name} changed`),
    ...changes.added.map((name) => `${name} added`),
    ...changes.removed.map((name) => `${name} removed`),
  ].join(", ");
}
