/**
 * extension.json: schema, loading and classification. A manifest describes a
 * protocol extension (spawned, needs `exec`), a skills-only bundle (`skills`
 * and/or `agents` array, never spawned) or a theme-only bundle (theme.json or
 * themes/theme.json beside it, never spawned). Unknown fields are kept so
 * rewrites (enable/disable) preserve them. Every failure is a ManifestError
 * naming the directory and the field.
 */
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import { ZotError, systemErrorCode } from "../common/errors.ts";
import { MAX_JSON_DEPTH, parseJson } from "../common/json.ts";
import { NotRegularFileError, readRegularText } from "../common/regular-file.ts";
import { describeProblem, firstProblem } from "../common/validation.ts";

export const MANIFEST_FILE = "extension.json";

/** Names become log file names and directory names: keep them path-safe. */
const NAME_PATTERN = /^[A-Za-z0-9_@+][A-Za-z0-9_.@+-]{0,127}$/;

/** The source of schemas/extension.schema.json (scripts/gen-schemas.ts). */
export const ManifestSchema = v.looseObject({
  name: v.pipe(
    v.string("expected a string"),
    v.minLength(1, "must not be empty"),
    v.regex(NAME_PATTERN, "must be 1-128 characters of letters, digits, '_', '-', '.', '@', '+' and not start with '.' or '-'"),
  ),
  version: v.optional(v.string("expected a string")),
  exec: v.optional(v.pipe(v.string("expected a string"), v.minLength(1, "must not be empty"))),
  args: v.optional(v.array(v.string("expected a string"), "expected an array of strings")),
  language: v.optional(v.string("expected a string")),
  description: v.optional(v.string("expected a string")),
  skills: v.optional(v.array(v.string("expected a string"), "expected an array of strings")),
  /** Subagent definitions (src/agents/definitions.ts): directories of <name>.md or .md files. */
  agents: v.optional(v.array(v.string("expected a string"), "expected an array of strings")),
  enabled: v.optional(v.boolean("expected true or false")),
  on_timeout: v.optional(v.picklist(["allow", "deny"], 'expected "allow" or "deny"')),
});

export type Manifest = v.InferOutput<typeof ManifestSchema>;

/** What the host does with a manifest. */
export type ManifestKind = "process" | "skills" | "theme";

export interface LoadedManifest {
  /** Absolute extension directory. */
  readonly dir: string;
  readonly path: string;
  readonly manifest: Manifest;
  readonly kind: ManifestKind;
  readonly enabled: boolean;
}

export class ManifestError extends ZotError {
  constructor(
    readonly dir: string,
    readonly field: string,
    detail: string,
    cause?: unknown,
  ) {
    super("manifest", `${join(dir, MANIFEST_FILE)}: ${detail}`, { dir, field }, { cause });
  }
}

export function hasManifest(dir: string): boolean {
  return existsSync(join(dir, MANIFEST_FILE));
}

/** Validates parsed JSON as a manifest for `dir` (absolute). */
export function parseManifest(dir: string, raw: unknown): LoadedManifest {
  const result = v.safeParse(ManifestSchema, raw);
  if (!result.success) {
    const problem = firstProblem(result.issues);
    const field = problem.field || (typeof raw === "object" && raw !== null && !Array.isArray(raw) ? "name" : "");
    const detail = typeof raw !== "object" || raw === null || Array.isArray(raw)
      ? "expected a JSON object"
      : describeProblem({ field, message: problem.field ? problem.message : "is required" });
    throw new ManifestError(dir, field, detail);
  }
  const manifest = result.output;
  const kind = classify(dir, manifest);
  return { dir, path: join(dir, MANIFEST_FILE), manifest, kind, enabled: manifest.enabled !== false };
}

function classify(dir: string, manifest: Manifest): ManifestKind {
  if (manifest.exec !== undefined) return "process";
  // A bundle of agent definitions is never spawned either: the same kind as a skills-only one.
  if ((manifest.skills?.length ?? 0) > 0 || (manifest.agents?.length ?? 0) > 0) return "skills";
  if (existsSync(join(dir, "theme.json")) || existsSync(join(dir, "themes", "theme.json"))) return "theme";
  throw new ManifestError(dir, "exec", 'field "exec": is required (only skills-only, agents-only and theme-only bundles may omit it)');
}

/** The largest extension.json read (a real one is under a few KiB; a huge one would take its size several times over in memory). */
export const MAX_MANIFEST_BYTES = 1024 * 1024;

/** Reads and validates `<dir>/extension.json`. */
export async function loadManifest(dir: string): Promise<LoadedManifest> {
  const path = join(dir, MANIFEST_FILE);
  let text: string;
  try {
    // Synchronous and never blocking: a FIFO named extension.json would hold a pool thread, and discovery, forever.
    const size = statSync(path).size;
    if (size > MAX_MANIFEST_BYTES) throw new ManifestError(dir, "", `is ${size} bytes, over the ${MAX_MANIFEST_BYTES}-byte limit for a manifest`);
    text = readRegularText(path);
  } catch (err) {
    if (err instanceof ManifestError) throw err;
    const code = systemErrorCode(err);
    const detail = code === "ENOENT" ? "not found" : err instanceof NotRegularFileError ? "is not a regular file" : `cannot be read (${code ?? "error"})`;
    throw new ManifestError(dir, "", detail, err);
  }
  const parsed = parseJson(text, MAX_JSON_DEPTH);
  if (!parsed.ok) {
    const problem = parsed.problem;
    throw new ManifestError(dir, "", problem.kind === "too_deep" ? `is JSON nested deeper than ${problem.limit} levels` : `is not valid JSON (${problem.message})`);
  }
  return parseManifest(dir, parsed.value);
}
