/**
 * scripts/release.ts: the target table and file naming, a real build of
 * the host target (linux-x64 only: the other five need a 100 MB runtime
 * download each, too slow for the suite) whose SHA256SUMS and release.json
 * describe the file, whose binary answers --version, and whose own
 * install.sh (copied beside it) installs it from a local server, a target whose
 * runtime cannot be downloaded (proxy refused, empty cache) failing by
 * name with nothing left behind, and bad arguments.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { RELEASE_TARGETS, targetFor } from "../../src/upgrade/targets.ts";
import { REPO_ROOT } from "../support/binary.ts";
import { serveRelease } from "../support/release-server.ts";
import { removeTempDirs, tempDir } from "../support/temp.ts";

afterAll(removeTempDirs);

const onLinuxX64 = process.platform === "linux" && process.arch === "x64";
const RELEASE_SCRIPT = join(REPO_ROOT, "scripts", "release.ts");

async function runRelease(args: readonly string[], env: Record<string, string | undefined> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const proc = Bun.spawn([process.execPath, RELEASE_SCRIPT, ...args], { cwd: REPO_ROOT, env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
  const [code, stdout, stderr] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  return { code, stdout, stderr };
}

describe("release target table", () => {
  test("six targets named zot-<os>-<arch>[-musl][.exe]", () => {
    expect(RELEASE_TARGETS.map((target) => [target.id, target.file, target.bunTarget, target.libc])).toEqual([
      ["linux-x64", "zot-linux-x64", "bun-linux-x64", "glibc"],
      ["linux-arm64", "zot-linux-arm64", "bun-linux-arm64", "glibc"],
      ["linux-x64-musl", "zot-linux-x64-musl", "bun-linux-x64-musl", "musl"],
      ["darwin-x64", "zot-darwin-x64", "bun-darwin-x64", null],
      ["darwin-arm64", "zot-darwin-arm64", "bun-darwin-arm64", null],
      ["windows-x64", "zot-windows-x64.exe", "bun-windows-x64", null],
    ]);
  });

  test("a machine maps to its target, or to none", () => {
    expect(targetFor("linux", "x64", false)?.file).toBe("zot-linux-x64");
    expect(targetFor("linux", "x64", true)?.file).toBe("zot-linux-x64-musl");
    expect(targetFor("linux", "arm64", false)?.file).toBe("zot-linux-arm64");
    expect(targetFor("linux", "arm64", true)).toBeUndefined();
    expect(targetFor("darwin", "arm64", false)?.file).toBe("zot-darwin-arm64");
    expect(targetFor("win32", "x64", false)?.file).toBe("zot-windows-x64.exe");
    expect(targetFor("freebsd", "x64", false)).toBeUndefined();
    expect(targetFor("linux", "ia32", false)).toBeUndefined();
  });
});

describe("bun run release", () => {
  test.skipIf(!onLinuxX64)("--targets linux-x64 builds a binary described by SHA256SUMS and release.json", async () => {
    const outdir = tempDir("zot-release-");
    const result = await runRelease(["--outdir", outdir, "--targets", "linux-x64"]);
    expect(result.stderr).toContain("building zot-linux-x64");
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/zot-linux-x64\s+\d+\.\d MiB/);
    expect(readdirSync(outdir).sort()).toEqual(["SHA256SUMS", "install.sh", "release.json", "zot-linux-x64"]);
    const installer = readFileSync(join(REPO_ROOT, "install.sh"), "utf8");
    expect(readFileSync(join(outdir, "install.sh"), "utf8")).toBe(installer);

    const binary = join(outdir, "zot-linux-x64");
    const bytes = readFileSync(binary);
    const sha256 = new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
    const installerSum = new Bun.CryptoHasher("sha256").update(installer).digest("hex");
    expect(readFileSync(join(outdir, "SHA256SUMS"), "utf8")).toBe(`${sha256}  zot-linux-x64\n${installerSum}  install.sh\n`);
    const manifest = JSON.parse(readFileSync(join(outdir, "release.json"), "utf8")) as Record<string, unknown>;
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { version: string };
    expect(manifest.version).toBe(pkg.version);
    expect(manifest.commit).toMatch(/^([0-9a-f]{7}|unknown)$/);
    expect(manifest.date).toMatch(/^\d{4}-\d\d-\d\d$/);
    expect(manifest.files).toEqual([{ name: "zot-linux-x64", os: "linux", arch: "x64", libc: "glibc", size: statSync(binary).size, sha256 }]);

    const version = Bun.spawnSync([binary, "--version"], { env: { PATH: "/usr/bin:/bin" } });
    expect(version.exitCode).toBe(0);
    expect(version.stdout.toString()).toBe(`zot ${String(manifest.full_version)}\n`);

    // The release directory as served: its own install.sh installs its binary.
    const server = serveRelease(outdir);
    try {
      const installDir = join(tempDir("zot-release-install-"), "bin");
      const install = Bun.spawn(["/bin/sh", join(outdir, "install.sh")], {
        env: { PATH: "/usr/bin:/bin", HOME: tempDir("zot-release-home-"), ZOT_RELEASE_URL: server.url, ZOT_INSTALL_DIR: installDir },
        stdout: "pipe", stderr: "pipe",
      });
      const [code, stderr] = await Promise.all([install.exited, new Response(install.stderr).text()]);
      expect(stderr).toContain(`installed zot ${String(manifest.full_version)} to ${installDir}/zot`);
      expect(code).toBe(0);
      expect(readFileSync(join(installDir, "zot")).equals(bytes)).toBe(true);
    } finally {
      await server.stop();
    }
  });

  test.skipIf(!onLinuxX64)("a target runtime that cannot be downloaded fails by name and leaves the directory as it was", async () => {
    const outdir = tempDir("zot-release-");
    const cache = tempDir("zot-release-cache-");
    writeFileSync(join(outdir, "older-file"), "kept");
    const refused = "http://127.0.0.1:9";
    const result = await runRelease(["--outdir", outdir, "--targets", "linux-x64,darwin-arm64"], {
      BUN_INSTALL_CACHE_DIR: cache, HTTPS_PROXY: refused, https_proxy: refused, HTTP_PROXY: refused, http_proxy: refused,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("target darwin-arm64 (bun-darwin-arm64) failed: the Bun runtime for this target could not be downloaded");
    expect(result.stderr).toContain(`nothing was written to ${outdir}`);
    // The linux-x64 binary built first was a partial: removed with the rest.
    expect(readdirSync(outdir)).toEqual(["older-file"]);
  });

  test("an unknown target or argument is refused with exit 2", async () => {
    const unknownTarget = await runRelease(["--targets", "linux-x64,plan9-mips"]);
    expect(unknownTarget.code).toBe(2);
    expect(unknownTarget.stderr).toContain('unknown target "plan9-mips"');
    expect(unknownTarget.stderr).toContain("linux-x64,linux-arm64,linux-x64-musl,darwin-x64,darwin-arm64,windows-x64");
    const unknownArgument = await runRelease(["--out", "x"]);
    expect(unknownArgument.code).toBe(2);
    expect(unknownArgument.stderr).toContain('unknown argument "--out"');
  });
});
