/**
 * What a release directory says about itself: release.json (written by
 * scripts/release.ts: version, commit, date, files with name, os, arch,
 * libc, size, sha256) and SHA256SUMS (`<hex>  <file>` lines, sha256sum's
 * format; a `*` before the name, binary mode, is accepted). Parsed from
 * outside text: release.json through parseJson and checked field by field;
 * a malformed document is a ZotError "upgrade.bad_manifest" naming the URL
 * and the field.
 */
import * as v from "valibot";
import { ZotError } from "../common/errors.ts";
import { describeJsonProblem, parseJson } from "../common/json.ts";

const Sha256 = v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/i, "must be 64 hex digits"));

const ReleaseFileSchema = v.object({
  name: v.pipe(v.string(), v.regex(/^[A-Za-z0-9._-]+$/, "must be a plain file name")),
  os: v.optional(v.string()),
  arch: v.optional(v.string()),
  libc: v.optional(v.nullable(v.string())),
  size: v.pipe(v.number(), v.integer(), v.minValue(0)),
  sha256: Sha256,
});

const ReleaseManifestSchema = v.object({
  version: v.pipe(v.string(), v.regex(/^v?\d+\.\d+\.\d+([-+][0-9A-Za-z.+-]*)?$/, "must be a version like 1.2.3")),
  commit: v.optional(v.string()),
  date: v.optional(v.string()),
  files: v.array(ReleaseFileSchema),
});

export type ReleaseManifest = v.InferOutput<typeof ReleaseManifestSchema>;
export type ReleaseManifestFile = ReleaseManifest["files"][number];

export function parseReleaseManifest(text: string, url: string): ReleaseManifest {
  const parsed = parseJson(text);
  if (!parsed.ok) throw new ZotError("upgrade.bad_manifest", `${url} is not valid JSON: ${describeJsonProblem(parsed.problem)}`, { url });
  const checked = v.safeParse(ReleaseManifestSchema, parsed.value);
  if (!checked.success) {
    const issue = checked.issues[0];
    const field = issue ? v.getDotPath(issue) ?? "(document)" : "(document)";
    throw new ZotError("upgrade.bad_manifest", `${url}: field ${field}: ${issue?.message ?? "invalid"}`, { url, field });
  }
  return { ...checked.output, version: checked.output.version.replace(/^v/, "") };
}

/** File name → lowercase sha256 from SHA256SUMS text (malformed lines are skipped). */
export function parseSha256Sums(text: string): Map<string, string> {
  const sums = new Map<string, string>();
  for (const line of text.split("\n")) {
    const match = /^([0-9a-fA-F]{64}) [ *]?(\S.*?)\s*$/.exec(line);
    if (match) sums.set(match[2] as string, (match[1] as string).toLowerCase());
  }
  return sums;
}
