/**
 * `zot upgrade` through the compiled binary: dist/zot copied into a temp
 * dir is the "installed" zot; a local release server (test/support/
 * release-server.ts) serves a release whose new "binary" is a small shell
 * script answering --version with the release's version (proving both the
 * swap and the version check). Covers --check, a successful atomic swap
 * (new inode, no .old or temp file left), the same version, checksum
 * mismatches (release.json and SHA256SUMS), a server that is down, 404, an
 * oversized release.json, a stalled download, SIGINT during the
 * download, a directory zot may not
 * write, a new binary that fails --version before the swap and one that
 * fails after it (rollback), --version V, a symlinked zot, and usage errors.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, constants, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { isMuslLibc } from "../../src/common/platform.ts";
import { targetFor } from "../../src/upgrade/targets.ts";
import { zotBinary } from "../support/binary.ts";
import { fakeZotScript, serveRelease, withServer, writeFakeRelease } from "../support/release-server.ts";
import { removeTempDirs, tempDir } from "../support/temp.ts";

afterAll(removeTempDirs);

const hostFile = targetFor(process.platform, process.arch, isMuslLibc())?.file;
const NEW = "9.8.7";
let built = "";
let currentSemver = "";

beforeAll(async () => {
  built = await zotBinary();
  currentSemver = (JSON.parse(readFileSync(join(import.meta.dir, "..", "..", "package.json"), "utf8")) as { version: string }).version;
});

interface Installed {
  readonly dir: string;
  readonly exe: string;
  readonly inode: number;
}

function installZot(): Installed {
  const dir = join(tempDir("zot-upgrade-"), "bin");
  mkdirSync(dir);
  const exe = join(dir, "zot");
  copyFileSync(built, exe, constants.COPYFILE_FICLONE);
  chmodSync(exe, 0o755);
  return { dir, exe, inode: statSync(exe).ino };
}

function release(version: string, content: string = fakeZotScript(version)): string {
  const dir = tempDir("zot-upgrade-release-");
  writeFakeRelease(dir, version, [{ name: hostFile ?? "zot-unknown", content }]);
  return dir;
}

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

async function zot(exe: string, args: readonly string[], env: Record<string, string>, prefix: readonly string[] = []): Promise<Run> {
  const proc = Bun.spawn([...prefix, exe, ...args], {
    env: { PATH: "/usr/bin:/bin", HOME: tempDir("zot-upgrade-home-"), ZOT_HOME: tempDir("zot-upgrade-zothome-"), ...env },
    stdin: "ignore", stdout: "pipe", stderr: "pipe",
  });
  const timer = setTimeout(() => proc.kill("SIGKILL"), 25_000);
  const [code, stdout, stderr] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  clearTimeout(timer);
  return { code, stdout, stderr };
}

/** The installed zot is exactly as before, and nothing else is in its directory. */
function expectUntouched(installed: Installed): void {
  expect(statSync(installed.exe).ino).toBe(installed.inode);
  expect(statSync(installed.exe).size).toBe(statSync(built).size);
  expect(readdirSync(installed.dir)).toEqual(["zot"]);
}

describe.skipIf(hostFile === undefined || process.platform === "win32")("zot upgrade (compiled binary)", () => {
  test("--check says a newer release is available and changes nothing", async () => {
    const installed = installZot();
    await withServer(release(NEW), async (server) => {
      const run = await zot(installed.exe, ["upgrade", "--check"], { ZOT_RELEASE_URL: server.url });
      expect(run.stdout).toBe(`zot ${NEW} is available (installed: ${currentSemver}); run zot upgrade\n`);
      expect(run.code).toBe(0);
      expect(server.requests).toEqual(["release.json"]);
    });
    expectUntouched(installed);
  });

  test("--check says up to date when the release is this version", async () => {
    const installed = installZot();
    await withServer(release(currentSemver), async (server) => {
      const run = await zot(installed.exe, ["upgrade", "--check"], { ZOT_RELEASE_URL: server.url });
      expect(run.stdout).toBe(`zot ${currentSemver} is up to date (latest release: ${currentSemver})\n`);
      expect(run.code).toBe(0);
    });
  });

  test("replaces the executable atomically: new inode, the new version answers, no .old or temp file left", async () => {
    const installed = installZot();
    await withServer(release(NEW), async (server) => {
      const run = await zot(installed.exe, ["upgrade"], { ZOT_RELEASE_URL: server.url });
      expect(run.stderr).toContain(`downloading ${server.url}/${hostFile}`);
      expect(run.stdout).toBe(`upgraded zot ${currentSemver} -> ${NEW} (${installed.exe})\n`);
      expect(run.code).toBe(0);
      expect(server.requests).toEqual(["release.json", hostFile as string, "SHA256SUMS"]);
    });
    expect(statSync(installed.exe).ino).not.toBe(installed.inode);
    expect(readFileSync(installed.exe, "utf8")).toBe(fakeZotScript(NEW));
    expect(statSync(installed.exe).mode & 0o777).toBe(0o755);
    expect(readdirSync(installed.dir)).toEqual(["zot"]);
    expect(Bun.spawnSync([installed.exe, "--version"]).stdout.toString()).toBe(`zot ${NEW}\n`);
  });

  test("the same version is already up to date: nothing downloaded", async () => {
    const installed = installZot();
    await withServer(release(currentSemver), async (server) => {
      const run = await zot(installed.exe, ["upgrade"], { ZOT_RELEASE_URL: server.url });
      expect(run.stdout).toBe(`zot ${currentSemver} is already up to date (latest release: ${currentSemver})\n`);
      expect(run.code).toBe(0);
      expect(server.requests).toEqual(["release.json"]);
    });
    expectUntouched(installed);
  });

  test("a download that does not match release.json is refused, naming the file and both hashes", async () => {
    const installed = installZot();
    const dir = release(NEW);
    writeFileSync(join(dir, hostFile as string), fakeZotScript("6.6.6"));
    await withServer(dir, async (server) => {
      const run = await zot(installed.exe, ["upgrade"], { ZOT_RELEASE_URL: server.url });
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(new RegExp(`zot: checksum mismatch for ${hostFile}: release.json says [0-9a-f]{64}, the download is [0-9a-f]{64}; nothing was changed`));
    });
    expectUntouched(installed);
  });

  test("a download that does not match SHA256SUMS is refused", async () => {
    const installed = installZot();
    const dir = release(NEW);
    writeFileSync(join(dir, "SHA256SUMS"), `${"ab".repeat(32)}  ${hostFile}\n`);
    await withServer(dir, async (server) => {
      const run = await zot(installed.exe, ["upgrade"], { ZOT_RELEASE_URL: server.url });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`checksum mismatch for ${hostFile}: SHA256SUMS says ${"ab".repeat(32)}, the download is`);
    });
    expectUntouched(installed);
  });

  test("a server that is down: the error names the URL", async () => {
    const installed = installZot();
    const server = serveRelease(release(NEW));
    const url = server.url;
    await server.stop();
    const run = await zot(installed.exe, ["upgrade"], { ZOT_RELEASE_URL: url });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`zot: cannot reach ${url}/release.json: connection refused (no network, or the release server is down)\n`);
    expectUntouched(installed);
  });

  test("a release without release.json (404), an oversized one and a stalled binary download fail clearly", async () => {
    const installed = installZot();
    await withServer(tempDir("zot-upgrade-empty-"), async (server) => {
      const run = await zot(installed.exe, ["upgrade", "--check"], { ZOT_RELEASE_URL: server.url });
      expect(run.code).toBe(1);
      expect(run.stderr).toBe(`zot: ${server.url}/release.json: HTTP 404 (not found: no such release or file)\n`);
    });
    const big = release(NEW);
    writeFileSync(join(big, "release.json"), `{"pad":"${"x".repeat(1024 * 1024)}"}`);
    await withServer(big, async (server) => {
      const run = await zot(installed.exe, ["upgrade"], { ZOT_RELEASE_URL: server.url });
      expect(run.code).toBe(1);
      expect(run.stderr).toBe(`zot: ${server.url}/release.json is larger than the 1 MiB allowed; refused\n`);
    });
    const manifest = readFileSync(join(release(NEW), "release.json"), "utf8");
    const stalling = Bun.serve({
      hostname: "127.0.0.1", port: 0,
      fetch(request) {
        if (new URL(request.url).pathname === "/release.json") return new Response(manifest);
        // Headers and a first byte, then nothing.
        return new Response(new ReadableStream({ start: (controller) => controller.enqueue(new Uint8Array([35])) }), { headers: { "content-length": "1000" } });
      },
    });
    try {
      const url = `http://127.0.0.1:${stalling.port}`;
      const run = await zot(installed.exe, ["upgrade"], { ZOT_RELEASE_URL: url, ZOT_UPGRADE_IDLE_TIMEOUT: "1" });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`zot: ${url}/${hostFile}: no data for 1 s; giving up`);
    } finally {
      await stalling.stop(true);
    }
    expectUntouched(installed);
  });

  test("SIGINT during the download removes the partial file and changes nothing (exit 130)", async () => {
    const installed = installZot();
    const manifest = readFileSync(join(release(NEW), "release.json"), "utf8");
    let binaryRequested = false;
    const stalling = Bun.serve({
      hostname: "127.0.0.1", port: 0,
      fetch(request) {
        if (new URL(request.url).pathname === "/release.json") return new Response(manifest);
        binaryRequested = true;
        return new Response(new ReadableStream({ start: (controller) => controller.enqueue(new Uint8Array(4096)) }), { headers: { "content-length": "100000" } });
      },
    });
    try {
      const proc = Bun.spawn([installed.exe, "upgrade"], {
        env: { PATH: "/usr/bin:/bin", HOME: tempDir("zot-upgrade-home-"), ZOT_RELEASE_URL: `http://127.0.0.1:${stalling.port}` },
        stdin: "ignore", stdout: "pipe", stderr: "pipe",
      });
      // Wait (bounded) until the partial file is there, then interrupt.
      for (let waited = 0; waited < 15_000 && !(binaryRequested && readdirSync(installed.dir).length > 1); waited += 20) await Bun.sleep(20);
      expect(readdirSync(installed.dir).some((name) => name.startsWith(".zot.upgrade-"))).toBe(true);
      proc.kill("SIGINT");
      const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
      expect(code).toBe(130);
      expect(stderr).toContain("zot: upgrade interrupted by SIGINT; nothing was changed");
    } finally {
      await stalling.stop(true);
    }
    expectUntouched(installed);
  });

  test("a directory zot may not write: the error names it and says what to do", async () => {
    const installed = installZot();
    const asRoot = process.getuid?.() === 0;
    const setpriv = Bun.which("setpriv");
    if (asRoot && !setpriv) return; // root writes anywhere; without setpriv there is no other user to be
    // The installed zot is root's (or ours, in a 0555 directory); the upgrade runs as nobody (or as us).
    const opened: string[] = [];
    for (let dir = dirname(installed.dir); dir.startsWith(tmpdir()) && dir !== dirname(tmpdir()); dir = dirname(dir)) opened.push(dir);
    const modes = opened.map((dir) => statSync(dir).mode & 0o7777);
    try {
      if (asRoot) for (const dir of opened) chmodSync(dir, 0o711);
      else chmodSync(installed.dir, 0o555);
      await withServer(release(NEW), async (server) => {
        const prefix = asRoot ? [setpriv as string, "--reuid=65534", "--regid=65534", "--clear-groups", "--"] : [];
        const run = await zot(installed.exe, ["upgrade"], { ZOT_RELEASE_URL: server.url, HOME: "/", ZOT_HOME: "/nonexistent" }, prefix);
        expect(run.code).toBe(1);
        expect(run.stderr).toContain(`zot: cannot write to ${installed.dir} (EACCES), where zot is installed: re-run zot upgrade as a user who may write there (e.g. sudo zot upgrade), or reinstall with install.sh`);
      });
    } finally {
      opened.forEach((dir, i) => chmodSync(dir, modes[i] as number));
      chmodSync(installed.dir, 0o755);
    }
    expectUntouched(installed);
  });

  test("a new binary that fails --version is not installed", async () => {
    const installed = installZot();
    await withServer(release(NEW, fakeZotScript(NEW, { versionExit: 3 })), async (server) => {
      const run = await zot(installed.exe, ["upgrade"], { ZOT_RELEASE_URL: server.url });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`zot: the downloaded ${hostFile} answered --version with exit 3: "zot ${NEW}", expected "zot ${NEW}"`);
    });
    expectUntouched(installed);
  });

  test("a new binary that answers before the swap but not after it is rolled back: the old zot is back", async () => {
    const installed = installZot();
    // Right answer only under its temp name (.zot.upgrade-<pid>), wrong once it is "zot".
    const tricky = `#!/bin/sh\ncase "$0" in */.zot.upgrade-*) echo "zot ${NEW}" ;; *) echo "zot 0.0.1"; exit 1 ;; esac\n`;
    await withServer(release(NEW, tricky), async (server) => {
      const run = await zot(installed.exe, ["upgrade"], { ZOT_RELEASE_URL: server.url });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`the installed ${installed.exe} answered --version with exit 1: "zot 0.0.1", expected "zot ${NEW}"; rolled back: the previous zot is back at ${installed.exe}`);
    });
    expectUntouched(installed);
    expect(Bun.spawnSync([installed.exe, "--version"]).stdout.toString()).toStartWith(`zot ${currentSemver}`);
  });

  test("--version V installs V (an older one too) and refuses a release that is another version", async () => {
    const installed = installZot();
    await withServer(release("0.0.9"), async (server) => {
      const wrong = await zot(installed.exe, ["upgrade", "--version", "0.0.8"], { ZOT_RELEASE_URL: server.url });
      expect(wrong.code).toBe(1);
      expect(wrong.stderr).toBe(`zot: ${server.url}/release.json describes zot 0.0.9, not the requested 0.0.8\n`);
      expectUntouched(installed);
      const older = await zot(installed.exe, ["upgrade"], { ZOT_RELEASE_URL: server.url });
      expect(older.stdout).toContain("is already up to date");
      expectUntouched(installed);
      const run = await zot(installed.exe, ["upgrade", "--version", "v0.0.9"], { ZOT_RELEASE_URL: server.url });
      expect(run.stdout).toBe(`upgraded zot ${currentSemver} -> 0.0.9 (${installed.exe})\n`);
      expect(run.code).toBe(0);
    });
    expect(readFileSync(installed.exe, "utf8")).toBe(fakeZotScript("0.0.9"));
  });

  test("a symlinked zot: the file it points to is replaced, the link stays", async () => {
    const installed = installZot();
    const linkDir = tempDir("zot-upgrade-link-");
    const link = join(linkDir, "zot");
    symlinkSync(installed.exe, link);
    await withServer(release(NEW), async (server) => {
      const run = await zot(link, ["upgrade"], { ZOT_RELEASE_URL: server.url });
      expect(run.stdout).toBe(`upgraded zot ${currentSemver} -> ${NEW} (${installed.exe})\n`);
    });
    expect(readFileSync(link, "utf8")).toBe(fakeZotScript(NEW));
    expect(existsSync(join(installed.dir, "zot.old"))).toBe(false);
  });

  test("usage errors exit 2; --help exits 0", async () => {
    const installed = installZot();
    const unknown = await zot(installed.exe, ["upgrade", "--force"], {});
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe(`zot: upgrade: unknown flag "--force"\nrun 'zot upgrade --help' for usage\n`);
    const badVersion = await zot(installed.exe, ["upgrade", "--version", "latest"], {});
    expect(badVersion.code).toBe(2);
    expect(badVersion.stderr).toContain('"latest" is not a version like 0.2.0');
    const help = await zot(installed.exe, ["upgrade", "--help"], {});
    expect(help.code).toBe(0);
    expect(help.stdout).toStartWith("usage: zot upgrade [--check] [--version V]\n");
  });
});
