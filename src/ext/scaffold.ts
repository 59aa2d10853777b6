/**
 * `zot ext new <name>`: writes a working extension (scaffold-templates.ts)
 * into a new directory, atomically: the files go into a hidden staging
 * directory beside the destination, which is renamed into place only when
 * every file is written; any failure removes the staging directory, so
 * nothing half-written remains. Never overwrites: an existing destination
 * (file or directory, empty or not) is refused. The name must be a valid
 * manifest name (manifest.ts); the command and tool names are derived from it
 * (characters a command name cannot hold become "_", at most 64) for the
 * raw-protocol scaffolds. Errors are
 * ZotErrors naming the path or field at fault.
 */
import { chmodSync, existsSync, mkdirSync, lstatSync, mkdtempSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { ZotError, systemErrorCode } from "../common/errors.ts";
import { parseManifest } from "./manifest.ts";
import { scaffold, type ScaffoldLanguage, type ScaffoldNames } from "./scaffold-templates.ts";

export interface ScaffoldOptions {
  readonly name: string;
  readonly language: ScaffoldLanguage;
  /** The extension directory to create (default: <cwd>/<name>). */
  readonly dir?: string;
  readonly cwd: string;
}

export interface ScaffoldResult {
  readonly dir: string;
  readonly files: readonly string[];
  readonly names: ScaffoldNames;
  readonly command: string;
  readonly tool: string;
}

export function scaffoldNames(name: string): ScaffoldNames {
  const command = name.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64);
  return { name, command, tool: `${command.slice(0, 59)}_echo` };
}

export function scaffoldExtension(options: ScaffoldOptions): ScaffoldResult {
  const dest = resolve(options.cwd, options.dir ?? options.name);
  const names = scaffoldNames(options.name);
  const made = scaffold(names, options.language);
  const files = made.files;
  // The manifest we write must be one zot accepts: this validates the name, naming the field.
  const manifestFile = files.find((file) => file.path === "extension.json")!;
  try {
    parseManifest(dest, JSON.parse(manifestFile.text));
  } catch (err) {
    const detail = err instanceof Error ? err.message.replace(/^.*field "name": /, "") : String(err);
    throw new ZotError("scaffold", `invalid extension name ${JSON.stringify(options.name)}: ${detail}`, { field: "name" }, { cause: err });
  }
  if (existsSync(dest) || isDanglingLink(dest)) {
    throw new ZotError("scaffold", `${dest} already exists; refusing to overwrite it (choose another --dir)`, { dir: dest });
  }
  const parent = dirname(dest);
  if (!existsSync(parent) || !statSync(parent).isDirectory()) {
    throw new ZotError("scaffold", `${parent} is not a directory (create it first)`, { dir: parent });
  }
  let staging: string;
  try {
    staging = mkdtempSync(join(parent, `.${basename(dest)}.new-`));
  } catch (err) {
    throw new ZotError("scaffold", `cannot create a directory in ${parent} (${systemErrorCode(err) ?? "error"})`, { dir: parent }, { cause: err });
  }
  try {
    for (const file of files) {
      const path = join(staging, file.path);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, file.text, { flag: "wx" });
      if (file.executable) chmodSync(path, 0o755);
    }
    chmodSync(staging, 0o755);
    if (existsSync(dest)) throw new ZotError("scaffold", `${dest} appeared while writing; refusing to overwrite it`, { dir: dest });
    renameSync(staging, dest);
  } catch (err) {
    rmSync(staging, { recursive: true, force: true });
    if (err instanceof ZotError) throw err;
    throw new ZotError("scaffold", `cannot write ${dest} (${systemErrorCode(err) ?? (err instanceof Error ? err.message : "error")}); nothing was created`, { dir: dest }, { cause: err });
  }
  return { dir: dest, files: files.map((file) => file.path), names, command: made.command, tool: made.tool };
}

function isDanglingLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}
