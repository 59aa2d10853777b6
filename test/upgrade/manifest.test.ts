/**
 * What `zot upgrade` accepts from a release directory: release.json
 * checked field by field (malformed, too deeply nested, a bad sha256 or
 * file name, a version that is not one: refused naming the URL and the
 * field), SHA256SUMS lines in both of sha256sum's modes, and the version
 * order and --version answers the swap relies on.
 */
import { describe, expect, test } from "bun:test";
import { ZotError } from "../../src/common/errors.ts";
import { parseReleaseManifest, parseSha256Sums } from "../../src/upgrade/manifest.ts";
import { releaseBaseUrl } from "../../src/upgrade/release-url.ts";
import { answersVersion, compareVersions } from "../../src/upgrade/versions.ts";

const URL = "http://r/release.json";
const SHA = "a".repeat(64);

function refusal(text: string): string {
  try {
    parseReleaseManifest(text, URL);
  } catch (err) {
    expect(err).toBeInstanceOf(ZotError);
    return (err as ZotError).message;
  }
  throw new Error("accepted");
}

describe("release.json", () => {
  test("a release.json of scripts/release.ts is accepted; a v prefix is dropped", () => {
    const manifest = parseReleaseManifest(JSON.stringify({ version: "v1.2.3", commit: "abc", date: "2026-12-01", files: [{ name: "zot-linux-x64", os: "linux", arch: "x64", libc: "glibc", size: 5, sha256: SHA }] }), URL);
    expect(manifest.version).toBe("1.2.3");
    expect(manifest.files[0]?.name).toBe("zot-linux-x64");
  });

  test("malformed documents are refused naming the URL and the field", () => {
    expect(refusal("{")).toStartWith(`${URL} is not valid JSON`);
    expect(refusal(`${"[".repeat(300)}${"]".repeat(300)}`)).toBe(`${URL} is not valid JSON: JSON nested deeper than 256 levels`);
    expect(refusal(JSON.stringify({ version: "latest", files: [] }))).toBe(`${URL}: field version: must be a version like 1.2.3`);
    expect(refusal(JSON.stringify({ version: "1.0.0" }))).toStartWith(`${URL}: field files:`);
    expect(refusal(JSON.stringify({ version: "1.0.0", files: [{ name: "zot", size: 1, sha256: "xyz" }] }))).toBe(`${URL}: field files.0.sha256: must be 64 hex digits`);
    expect(refusal(JSON.stringify({ version: "1.0.0", files: [{ name: "../zot", size: 1, sha256: SHA }] }))).toBe(`${URL}: field files.0.name: must be a plain file name`);
    expect(refusal(JSON.stringify({ version: "1.0.0", files: [{ name: "zot", size: -1, sha256: SHA }] }))).toStartWith(`${URL}: field files.0.size:`);
  });
});

describe("SHA256SUMS", () => {
  test("text and binary mode lines; other lines skipped; hex lowercased", () => {
    const sums = parseSha256Sums(`${SHA}  zot-linux-x64\n${"B".repeat(64)} *zot-windows-x64.exe\nnot a line\n${"c".repeat(63)}  short\n`);
    expect([...sums]).toEqual([["zot-linux-x64", SHA], ["zot-windows-x64.exe", "b".repeat(64)]]);
  });
});

describe("versions", () => {
  test("order: numeric parts, a pre-release before its release", () => {
    expect(compareVersions("0.10.0", "0.9.9")).toBeGreaterThan(0);
    expect(compareVersions("1.0.0", "v1.0.0")).toBe(0);
    expect(compareVersions("1.0.0-rc.1", "1.0.0")).toBeLessThan(0);
    expect(compareVersions("1.0.0-rc.10", "1.0.0-rc.9")).toBeGreaterThan(0);
    expect(compareVersions("1.0.0-alpha", "1.0.0-beta")).toBeLessThan(0);
    expect(compareVersions("1.0.0+build.5", "1.0.0")).toBe(0);
  });

  test("a --version answer names exactly that version", () => {
    expect(answersVersion("zot 1.2.3 (abc1234, 2026-12-01)\n", "1.2.3")).toBe(true);
    expect(answersVersion("zot 1.2.3\n", "1.2.3")).toBe(true);
    expect(answersVersion("zot 1.2.30\n", "1.2.3")).toBe(false);
    expect(answersVersion("not zot 1.2.3\n", "1.2.3")).toBe(false);
  });

  test("release URLs: ZOT_RELEASE_URL as given (trailing slashes dropped), else the GitHub layout", () => {
    expect(releaseBaseUrl({ ZOT_RELEASE_URL: "http://x/rel//" }, "2.0.0")).toBe("http://x/rel");
    expect(releaseBaseUrl({})).toBe("https://github.com/zot-agent/zot/releases/latest/download");
    expect(releaseBaseUrl({}, "2.0.0")).toBe("https://github.com/zot-agent/zot/releases/download/v2.0.0");
  });
});
