/**
 * install.sh against a local release server (test/support/release-server.ts)
 * serving a fake release whose "binary" is a small shell script: run under
 * sh, dash, busybox sh and bash --posix when present, with curl or wget and sha256sum or
 * shasum (a PATH holding only the tools a minimal system has): the happy
 * path installs an executable zot; a corrupted file, a file missing from
 * SHA256SUMS, a 404 or a refused connection install nothing and say why;
 * ZOT_INSTALL_DIR is honoured; the PATH hint is printed only when the
 * directory is not on PATH; the default URL matches src/upgrade/release-url.ts.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_RELEASE_URL, VERSIONED_RELEASE_URL_PREFIX } from "../../src/upgrade/release-url.ts";
import { isMuslLibc } from "../../src/common/platform.ts";
import { targetFor } from "../../src/upgrade/targets.ts";
import { REPO_ROOT } from "../support/binary.ts";
import { fakeZotScript, serveRelease, writeFakeRelease } from "../support/release-server.ts";
import { removeTempDirs, tempDir } from "../support/temp.ts";

afterAll(removeTempDirs);

const INSTALL_SH = join(REPO_ROOT, "install.sh");
const musl = isMuslLibc();
const hostFile = targetFor(process.platform, process.arch, musl)?.file;
const VERSION = "9.8.7";

function shells(): string[][] {
  const found: string[][] = [["/bin/sh"]];
  const dash = Bun.which("dash");
  if (dash) found.push([dash]);
  const busybox = Bun.which("busybox");
  if (busybox) found.push([busybox, "sh"]);
  const bash = Bun.which("bash");
  if (bash) found.push([bash, "--posix"]);
  return found;
}

/** A bin directory with only the tools install.sh may use (plus the chosen downloader and hasher). */
function toolbox(downloader: "curl" | "wget", hasher: "sha256sum" | "shasum"): string {
  const dir = tempDir("zot-install-tools-");
  for (const tool of ["uname", "mkdir", "rm", "chmod", "mv", "ldd", downloader, hasher]) {
    const path = Bun.which(tool);
    if (path) symlinkSync(path, join(dir, tool));
  }
  return dir;
}

interface InstallRun {
  readonly code: number;
  readonly stderr: string;
  readonly installDir: string;
}

async function install(env: Record<string, string>, options: { shell?: string[]; installDir?: string } = {}): Promise<InstallRun> {
  const installDir = options.installDir ?? join(tempDir("zot-install-"), "bin");
  const proc = Bun.spawn([...(options.shell ?? ["/bin/sh"]), INSTALL_SH], {
    env: { HOME: tempDir("zot-install-home-"), PATH: toolbox("curl", "sha256sum"), ZOT_INSTALL_DIR: installDir, ...env },
    stdout: "pipe", stderr: "pipe",
  });
  const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
  return { code, stderr, installDir };
}

function releaseDir(content: string = fakeZotScript(VERSION)): string {
  const dir = tempDir("zot-install-release-");
  writeFakeRelease(dir, VERSION, [{ name: hostFile ?? "zot-unknown", content }]);
  return dir;
}

function expectNothingInstalled(installDir: string): void {
  // Neither zot nor a temp file is left in the directory.
  expect(existsSync(installDir) ? readdirSync(installDir) : []).toEqual([]);
}

describe.skipIf(hostFile === undefined || process.platform === "win32")("install.sh", () => {
  test("passes sh -n", () => {
    for (const shell of shells()) expect(Bun.spawnSync([...shell, "-n", INSTALL_SH]).exitCode).toBe(0);
  });

  test("its default release URL is the one zot upgrade uses", () => {
    const text = readFileSync(INSTALL_SH, "utf8");
    expect(text).toContain(`\nDEFAULT_RELEASE_URL="${DEFAULT_RELEASE_URL}"\n`);
    expect(text).toContain(`\nVERSIONED_RELEASE_URL_PREFIX="${VERSIONED_RELEASE_URL_PREFIX}"\n`);
  });

  for (const shell of shells()) {
    test(`installs an executable zot under ${shell.join(" ")}`, async () => {
      const server = serveRelease(releaseDir());
      try {
        const run = await install({ ZOT_RELEASE_URL: `${server.url}/` }, { shell });
        expect(run.stderr).toContain(`installed zot ${VERSION} to ${run.installDir}/zot`);
        expect(run.code).toBe(0);
        expect(readdirSync(run.installDir)).toEqual(["zot"]);
        expect(statSync(join(run.installDir, "zot")).mode & 0o777).toBe(0o755);
        expect(Bun.spawnSync([join(run.installDir, "zot"), "--version"]).stdout.toString()).toBe(`zot ${VERSION}\n`);
        expect(server.requests).toEqual(["SHA256SUMS", hostFile as string]);
      } finally {
        await server.stop();
      }
    });
  }

  for (const [downloader, hasher] of [["wget", "shasum"], ["curl", "shasum"], ["wget", "sha256sum"]] as const) {
    test.skipIf(!Bun.which(downloader) || !Bun.which(hasher))(`works with ${downloader} and ${hasher}`, async () => {
      const server = serveRelease(releaseDir());
      try {
        const run = await install({ ZOT_RELEASE_URL: server.url, PATH: toolbox(downloader, hasher) });
        expect(run.stderr).toContain(`installed zot ${VERSION}`);
        expect(run.code).toBe(0);
      } finally {
        await server.stop();
      }
    });
  }

  test.skipIf(!Bun.which("busybox"))("works on a busybox-only system (every tool a busybox applet, busybox wget)", async () => {
    const busybox = Bun.which("busybox") as string;
    const tools = tempDir("zot-install-busybox-");
    for (const applet of ["sh", "uname", "mkdir", "rm", "chmod", "mv", "wget", "sha256sum"]) symlinkSync(busybox, join(tools, applet));
    const server = serveRelease(releaseDir());
    try {
      const run = await install({ ZOT_RELEASE_URL: server.url, PATH: tools }, { shell: [join(tools, "sh")] });
      expect(run.stderr).toContain(`installed zot ${VERSION}`);
      expect(run.code).toBe(0);
      const corrupted = releaseDir();
      writeFileSync(join(corrupted, hostFile as string), "tampered");
      const refusedServer = serveRelease(corrupted);
      try {
        const refused = await install({ ZOT_RELEASE_URL: refusedServer.url, PATH: tools }, { shell: [join(tools, "sh")] });
        expect(refused.code).toBe(1);
        expect(refused.stderr).toContain("checksum mismatch");
        expectNothingInstalled(refused.installDir);
      } finally {
        await refusedServer.stop();
      }
    } finally {
      await server.stop();
    }
  });

  test("piped into sh (curl … | sh): the binary's --version check does not read the pipe", async () => {
    // A "binary" that reads its stdin to the end before answering, as a careless program might.
    const greedy = `#!/bin/sh\nwhile read -r line; do :; done\necho "zot ${VERSION}"\n`;
    const server = serveRelease(releaseDir(greedy));
    const script = readFileSync(INSTALL_SH, "utf8");
    // The script first; more input on the same pipe once the --version check runs (sh reads it after main).
    try {
      const installDir = join(tempDir("zot-install-"), "bin");
      const proc = Bun.spawn(["/bin/sh"], {
        env: { HOME: tempDir("zot-install-home-"), PATH: toolbox("curl", "sha256sum"), ZOT_INSTALL_DIR: installDir, ZOT_RELEASE_URL: server.url },
        stdin: "pipe", stdout: "pipe", stderr: "pipe",
      });
      proc.stdin.write(script);
      await proc.stdin.flush();
      const checking = (): boolean => {
        try {
          // The check runs (a greedy binary waits there) or has run (zot installed).
          return readdirSync(installDir).some((name) => name === "zot" || (name.startsWith(".zot.install.") && (statSync(join(installDir, name)).mode & 0o777) === 0o755));
        } catch {
          return false;
        }
      };
      for (let waited = 0; waited < 15_000 && !checking(); waited += 10) await Bun.sleep(10);
      proc.stdin.write('echo "input after the script" >&2\n');
      await proc.stdin.end();
      const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
      expect(stderr).toContain(`installed zot ${VERSION} to ${installDir}/zot`);
      expect(stderr).toContain("input after the script");
      expect(stderr).toContain("is not on your PATH");
      expect(code).toBe(0);
    } finally {
      await server.stop();
    }
  });

  test("a truncated script (a download cut short) runs nothing", async () => {
    const server = serveRelease(releaseDir());
    const script = readFileSync(INSTALL_SH, "utf8");
    try {
      const installDir = join(tempDir("zot-install-"), "bin");
      const proc = Bun.spawn(["/bin/sh"], {
        env: { HOME: tempDir("zot-install-home-"), PATH: toolbox("curl", "sha256sum"), ZOT_INSTALL_DIR: installDir, ZOT_RELEASE_URL: server.url },
        stdin: new TextEncoder().encode(script.slice(0, script.indexOf("  mv -f"))), stdout: "pipe", stderr: "pipe",
      });
      expect(await proc.exited).not.toBe(0);
      expect(server.requests).toEqual([]);
      expect(existsSync(installDir)).toBe(false);
    } finally {
      await server.stop();
    }
  });

  test("replaces an existing zot in ZOT_INSTALL_DIR and prints no PATH hint when the directory is on PATH", async () => {
    const server = serveRelease(releaseDir());
    const installDir = tempDir("zot-install-dir-");
    writeFileSync(join(installDir, "zot"), "old");
    try {
      const tools = toolbox("curl", "sha256sum");
      const run = await install({ ZOT_RELEASE_URL: server.url, PATH: `${tools}:${installDir}` }, { installDir });
      expect(run.code).toBe(0);
      expect(readFileSync(join(installDir, "zot"), "utf8")).toBe(fakeZotScript(VERSION));
      expect(run.stderr).not.toContain("is not on your PATH");
    } finally {
      await server.stop();
    }
  });

  test("prints how to put the directory on PATH when it is not there", async () => {
    const server = serveRelease(releaseDir());
    try {
      const run = await install({ ZOT_RELEASE_URL: server.url });
      expect(run.code).toBe(0);
      expect(run.stderr).toContain(`${run.installDir} is not on your PATH; add it with:`);
      expect(run.stderr).toContain(`export PATH="${run.installDir}:$PATH"`);
    } finally {
      await server.stop();
    }
  });

  test("defaults to ~/.local/bin", async () => {
    const server = serveRelease(releaseDir());
    const home = tempDir("zot-install-home-");
    try {
      const proc = Bun.spawn(["/bin/sh", INSTALL_SH], { env: { HOME: home, PATH: toolbox("curl", "sha256sum"), ZOT_RELEASE_URL: server.url }, stderr: "pipe" });
      expect(await proc.exited).toBe(0);
      expect(existsSync(join(home, ".local", "bin", "zot"))).toBe(true);
    } finally {
      await server.stop();
    }
  });

  for (const shell of shells()) {
    test(`refuses a corrupted file under ${shell.join(" ")}: nothing installed`, async () => {
      const dir = releaseDir();
      writeFileSync(join(dir, hostFile as string), fakeZotScript("6.6.6")); // SHA256SUMS still lists the original
      const server = serveRelease(dir);
      try {
        const run = await install({ ZOT_RELEASE_URL: server.url }, { shell });
        expect(run.code).toBe(1);
        expect(run.stderr).toMatch(new RegExp(`checksum mismatch for ${hostFile}: SHA256SUMS says [0-9a-f]{64}, the download is [0-9a-f]{64}; nothing installed`));
        expectNothingInstalled(run.installDir);
      } finally {
        await server.stop();
      }
    });
  }

  test("refuses a file SHA256SUMS does not list", async () => {
    const dir = releaseDir();
    writeFileSync(join(dir, "SHA256SUMS"), `${"0".repeat(64)}  zot-other-os\n`);
    const server = serveRelease(dir);
    try {
      const run = await install({ ZOT_RELEASE_URL: server.url });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`SHA256SUMS does not list ${hostFile}: nothing installed`);
      expectNothingInstalled(run.installDir);
    } finally {
      await server.stop();
    }
  });

  test("a file missing from the release (404) fails naming its URL", async () => {
    const server = serveRelease(tempDir("zot-install-empty-"));
    try {
      for (const downloader of ["curl", "wget"] as const) {
        if (!Bun.which(downloader)) continue;
        const run = await install({ ZOT_RELEASE_URL: server.url, PATH: toolbox(downloader, "sha256sum") });
        expect(run.code).toBe(1);
        expect(run.stderr).toContain(`could not download ${server.url}/SHA256SUMS (${downloader} exit`);
        expectNothingInstalled(run.installDir);
      }
    } finally {
      await server.stop();
    }
  });

  test("a refused connection fails naming the URL", async () => {
    const run = await install({ ZOT_RELEASE_URL: "http://127.0.0.1:9/release" });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("could not download http://127.0.0.1:9/release/SHA256SUMS");
    expectNothingInstalled(run.installDir);
  });

  test("a binary that does not run is not installed", async () => {
    const server = serveRelease(releaseDir("\u007fELF not really a program"));
    try {
      const run = await install({ ZOT_RELEASE_URL: server.url });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`the downloaded ${hostFile} does not run on this machine`);
      expectNothingInstalled(run.installDir);
    } finally {
      await server.stop();
    }
  });

  test("an unwritable install directory is refused before downloading", async () => {
    const parent = tempDir("zot-install-ro-");
    const file = join(parent, "not-a-dir");
    writeFileSync(file, "");
    const run = await install({ ZOT_RELEASE_URL: "http://127.0.0.1:9" }, { installDir: join(file, "bin") });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`cannot create ${file}/bin`);
  });

  test("ZOT_VERSION selects the versioned GitHub directory (shown in the download line)", async () => {
    // No network in tests: the download itself fails; the URL it tried is what matters.
    const run = await install({ ZOT_VERSION: "1.2.3", https_proxy: "http://127.0.0.1:9", HTTPS_PROXY: "http://127.0.0.1:9" });
    expect(run.stderr).toContain(`downloading ${VERSIONED_RELEASE_URL_PREFIX}v1.2.3/${hostFile}`);
    expect(run.code).toBe(1);
  });
});
