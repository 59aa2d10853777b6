/**
 * bash under --jail (ctx.jailRoot): the bubblewrap sandbox confines reads,
 * writes, network and environment; no usable sandbox means a refusal; the
 * kill semantics reach every process in the sandbox. Linux only (the macOS
 * profile is exercised only for its text). The file tools' hard-link refusal
 * and the read tool's access to its own spill files are here too.
 */
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, linkSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TailCapture } from "../../src/tools/bash-output.ts";
import { builtinTools, createBashTool } from "../../src/tools/index.ts";
import { hiddenEtcEntries } from "../../src/tools/sandbox-linux.ts";
import { seatbeltProfile } from "../../src/tools/sandbox-macos.ts";
import type { Tool, ToolOutcome } from "../../src/tools/types.ts";
import { cleanupTempDirs, makeContext, tempDir, textOf } from "./helpers.ts";

afterAll(cleanupTempDirs);

const linux = process.platform === "linux";
/** The sandbox tests need bubblewrap (.ci/run installs it); where it is missing they are skipped, the refusal tests still run. */
const hasBwrap = Bun.which("bwrap") !== null;
const savedEnv = { ...process.env };
afterEach(() => {
  for (const key of Object.keys(process.env)) if (!(key in savedEnv)) delete process.env[key];
  Object.assign(process.env, savedEnv);
});

function jail(): { base: string; root: string; outside: string; spill: string } {
  const base = tempDir("zot-jail-");
  const root = join(base, "root");
  const outside = join(base, "outside");
  mkdirSync(root);
  mkdirSync(outside);
  writeFileSync(join(outside, "secret.txt"), "top secret\n");
  return { base, root, outside, spill: join(base, "spill") };
}

function fileTool(name: string): Tool {
  const found = builtinTools({ only: [name] })[0];
  if (!found) throw new Error(`no tool ${name}`);
  return found;
}

/** Pids of host processes whose command line contains marker. */
function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ");
      if (cmdline.includes(marker)) found.push(Number(entry));
    } catch {
      // Gone.
    }
  }
  return found;
}

/** Resolves once at least `count` processes carry marker (false after ms). */
async function seen(marker: string, count: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (processesWith(marker).length < count) {
    if (Date.now() > deadline) return false;
    await Bun.sleep(10);
  }
  return true;
}

async function noneLeft(marker: string, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (processesWith(marker).length > 0) {
    if (Date.now() > deadline) return false;
    await Bun.sleep(50);
  }
  return true;
}

describe.if(linux && hasBwrap)("bash in the bubblewrap sandbox (skipped where bwrap is missing; .ci/run installs it)", () => {
  test("reads and writes outside the jail fail; writes inside and in /tmp work", async () => {
    const { root, outside, spill } = jail();
    const bash = createBashTool({ spillDir: spill });
    const ctx = makeContext(root, { jailRoot: root });
    const read = await bash.execute({ command: `cat ${outside}/secret.txt` }, ctx);
    expect(read.details?.sandbox).toBe("bwrap");
    expect(read.isError).toBe(true);
    expect(textOf(read)).not.toContain("top secret");
    const write = await bash.execute({ command: `touch ${outside}/x; echo leaked > ${outside}/secret.txt` }, ctx);
    expect(write.isError).toBe(true);
    expect(existsSync(join(outside, "x"))).toBe(false);
    expect(readFileSync(join(outside, "secret.txt"), "utf8")).toBe("top secret\n");
    const rootWrite = await bash.execute({ command: "touch /zot-jail-probe" }, ctx);
    expect(textOf(rootWrite)).toContain("Read-only file system");
    const inside = await bash.execute({ command: "echo hi > inside.txt && echo tmp > /tmp/t && cat /tmp/t inside.txt" }, ctx);
    expect(textOf(inside)).toMatch(/^\$ echo hi > inside\.txt && echo tmp > \/tmp\/t && cat \/tmp\/t inside\.txt\n\ntmp\nhi\n\n\[exit 0\]  Took /);
    expect(readFileSync(join(root, "inside.txt"), "utf8")).toBe("hi\n");
  });

  test("the project's .zot (what zot itself starts: extensions, MCP servers) is read-only for bash; the rest of the root is not", async () => {
    const { root, spill } = jail();
    mkdirSync(join(root, ".zot", "extensions", "e1"), { recursive: true });
    writeFileSync(join(root, ".zot", "extensions", "e1", "lib.sh"), "echo ok\n");
    const bash = createBashTool({ spillDir: spill });
    const ctx = makeContext(root, { jailRoot: root });
    const attempt = await bash.execute({ command: "echo 'touch /tmp/pwned' > .zot/extensions/e1/lib.sh; touch .zot/new; echo fine > beside.txt" }, ctx);
    expect(textOf(attempt)).toContain("Read-only file system");
    expect(readFileSync(join(root, ".zot", "extensions", "e1", "lib.sh"), "utf8")).toBe("echo ok\n");
    expect(existsSync(join(root, ".zot", "new"))).toBe(false);
    expect(readFileSync(join(root, "beside.txt"), "utf8")).toBe("fine\n");
  });

  test("/etc files others may not read are hidden, and the walk finds them", async () => {
    const { root, base, spill } = jail();
    const bash = createBashTool({ spillDir: spill });
    const outcome = await bash.execute({ command: "cat /etc/shadow; cat /etc/passwd | head -c 5" }, makeContext(root, { jailRoot: root }));
    expect(textOf(outcome)).toContain("/etc/shadow: Permission denied");
    expect(textOf(outcome)).toContain("root:");

    const etc = join(base, "etc");
    mkdirSync(join(etc, "ssl", "private"), { recursive: true });
    mkdirSync(join(etc, "open"));
    writeFileSync(join(etc, "open", "secret.conf"), "x");
    writeFileSync(join(etc, "open", "public.conf"), "x");
    chmodSync(join(etc, "open", "secret.conf"), 0o640);
    chmodSync(join(etc, "ssl", "private"), 0o700);
    const masks = await hiddenEtcEntries(etc);
    expect(masks.map((mask) => [mask.path.slice(etc.length), mask.directory]).sort()).toEqual([
      ["/open/secret.conf", false],
      ["/ssl/private", true],
    ]);
  });

  test("secret-looking variables are removed; no network unless ZOT_JAIL_NETWORK=1", async () => {
    const { root, spill } = jail();
    const bash = createBashTool({ spillDir: spill });
    const ctx = makeContext(root, { jailRoot: root });
    process.env.ZOT_TEST_API_KEY = "sk-should-not-leak";
    process.env.ZOT_TEST_PLAIN = "visible";
    const env = await bash.execute({ command: "env" }, ctx);
    expect(textOf(env)).toContain("ZOT_TEST_PLAIN=visible");
    expect(textOf(env)).not.toContain("sk-should-not-leak");
    expect(textOf(env)).toContain("TMPDIR=/tmp");

    const server = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {}, open(socket) { socket.end(); } } });
    try {
      const connect = `/usr/bin/perl -MIO::Socket::INET -e 'exit(IO::Socket::INET->new(PeerAddr => "127.0.0.1:${server.port}", Timeout => 5) ? 0 : 7)'`;
      const offline = await bash.execute({ command: connect }, ctx);
      expect(offline.details?.exit_code).toBe(7);
      process.env.ZOT_JAIL_NETWORK = "1";
      const online = await bash.execute({ command: connect }, ctx);
      expect(online.details?.exit_code).toBe(0);
    } finally {
      server.stop(true);
    }
  });

  test("background jobs, even setsid ones, end with the command", async () => {
    const { root, spill } = jail();
    const bash = createBashTool({ spillDir: spill });
    const marker = `${40 + Math.random()}`.slice(0, 12);
    const running = bash.execute({ command: `sleep ${marker} & setsid sleep ${marker} & sleep 1; echo started` }, makeContext(root, { jailRoot: root }));
    expect(await seen(`sleep ${marker}`, 2, 5000)).toBe(true);
    const outcome = await running;
    expect(outcome.isError).toBe(false);
    expect(await noneLeft(`sleep ${marker}`, 5000)).toBe(true);
  });

  test("a timeout kills the whole sandboxed tree, including a child that ignores SIGTERM", async () => {
    const { root, spill } = jail();
    const bash = createBashTool({ spillDir: spill });
    const marker = `${50 + Math.random()}`.slice(0, 12);
    const ctx = makeContext(root, { jailRoot: root });
    const running = bash.execute({ command: `sh -c 'trap "" TERM; sleep ${marker}' & setsid sleep ${marker} & echo up; wait`, timeout: 1 }, ctx);
    expect(await seen(`sleep ${marker}`, 2, 5000)).toBe(true);
    const outcome = await running;
    expect(outcome.status).toBe("timed_out");
    expect(textOf(outcome)).toContain("\n... [timed out after 1s; process group killed]\n\n[exit ");
    expect(await noneLeft(`sleep ${marker}`, 5000)).toBe(true);
  });

  test("cancelling kills the sandboxed tree", async () => {
    const { root, spill } = jail();
    const bash = createBashTool({ spillDir: spill });
    const marker = `${60 + Math.random()}`.slice(0, 12);
    const controller = new AbortController();
    const ctx = makeContext(root, { jailRoot: root, signal: controller.signal });
    const running = bash.execute({ command: `setsid sleep ${marker} & echo up; wait` }, ctx);
    while (!ctx.progress.join("").includes("up")) await Bun.sleep(10);
    expect(await seen(`sleep ${marker}`, 1, 5000)).toBe(true);
    controller.abort();
    expect((await running).status).toBe("cancelled");
    expect(await noneLeft(`sleep ${marker}`, 5000)).toBe(true);
  });
});

describe.if(linux)("no usable sandbox: bash is refused, never run unconfined", () => {
  async function refused(outcome: ToolOutcome, marker: string): Promise<void> {
    expect(outcome.isError).toBe(true);
    expect(outcome.status).toBe("blocked");
    expect(textOf(outcome)).toContain("bash is refused under --jail: no OS sandbox is available (bubblewrap `bwrap` is not on PATH)");
    expect(textOf(outcome)).toContain("apt-get install bubblewrap");
    expect(existsSync(marker)).toBe(false);
  }

  test("without bwrap on PATH", async () => {
    const { root, base, spill } = jail();
    const bin = join(base, "bin");
    mkdirSync(bin);
    process.env.PATH = bin;
    const outcome = await createBashTool({ spillDir: spill }).execute({ command: "touch ran" }, makeContext(root, { jailRoot: root }));
    await refused(outcome, join(root, "ran"));
  });

  test("a bwrap inside the jail (the model can write there) is not trusted", async () => {
    const { root, spill } = jail();
    const bin = join(root, "bin");
    mkdirSync(bin);
    // A fake that would run the command unconfined.
    writeFileSync(join(bin, "bwrap"), '#!/bin/sh\nwhile [ "$1" != "--" ]; do shift; done; shift; exec "$@"\n', { mode: 0o755 });
    process.env.PATH = bin;
    const outcome = await createBashTool({ spillDir: spill }).execute({ command: "touch ran" }, makeContext(root, { jailRoot: root }));
    await refused(outcome, join(root, "ran"));
  });

  test("a bwrap that cannot build the sandbox (no user namespaces): refused with its message and what to check", async () => {
    const { root, base, spill } = jail();
    const bin = join(base, "bin");
    mkdirSync(bin);
    // Stands in for a kernel without unprivileged user namespaces: bwrap fails before running anything.
    writeFileSync(
      join(bin, "bwrap"),
      '#!/bin/sh\n[ "$1" = --version ] && { echo "bubblewrap 0.8.0"; exit 0; }\necho "bwrap: No permissions to create a new namespace" >&2; exit 1\n',
      { mode: 0o755 },
    );
    process.env.PATH = bin;
    const outcome = await createBashTool({ spillDir: spill }).execute({ command: "touch ran" }, makeContext(root, { jailRoot: root }));
    expect(outcome.status).toBe("blocked");
    expect(textOf(outcome)).toStartWith(
      "bash is refused under --jail: the bubblewrap sandbox could not be created (bwrap: No permissions to create a new namespace). " +
        "bwrap needs unprivileged user namespaces",
    );
    expect(existsSync(join(root, "ran"))).toBe(false);
  });

  test("a working directory outside the jail", async () => {
    const { root, outside, spill } = jail();
    const outcome = await createBashTool({ spillDir: spill }).execute({ command: "touch ran" }, makeContext(outside, { jailRoot: root }));
    expect(outcome.status).toBe("blocked");
    expect(textOf(outcome)).toContain("is outside the sandbox root");
    expect(existsSync(join(outside, "ran"))).toBe(false);
  });
});

describe("file tools under --jail", () => {
  test("a file with several hard links is refused by read, write and edit", async () => {
    const { root, outside } = jail();
    linkSync(join(outside, "secret.txt"), join(root, "linked.txt"));
    const ctx = makeContext(root, { jailRoot: root });
    const attempts: [string, Record<string, unknown>][] = [
      ["read", { path: "linked.txt" }],
      ["write", { path: "linked.txt", content: "x" }],
      ["edit", { path: "linked.txt", edits: [{ oldText: "top", newText: "no" }] }],
    ];
    for (const [name, args] of attempts) {
      const outcome = await fileTool(name).execute(args, ctx);
      expect(outcome.status).toBe("blocked");
      expect(textOf(outcome)).toBe(
        'jailed: "linked.txt" has 2 hard links; under --jail a file with more than one link is refused, ' +
          "because another link may be outside the sandbox root (copy the file to break the link)",
      );
    }
    expect(readFileSync(join(outside, "secret.txt"), "utf8")).toBe("top secret\n");
    // Without --jail the same file is an ordinary file.
    expect(textOf(await fileTool("read").execute({ path: "linked.txt" }, makeContext(root)))).toBe("top secret\n");
  });

  test.if(linux && hasBwrap)("read may open the spill files of this process's own bash commands, nothing else beside them (needs bwrap to run the command)", async () => {
    const { root, spill } = jail();
    const ctx = makeContext(root, { jailRoot: root });
    const outcome = await createBashTool({ spillDir: spill }).execute({ command: "seq 1 3000" }, ctx);
    const path = outcome.details?.full_output_path;
    expect(typeof path).toBe("string");
    const page = await fileTool("read").execute({ path, limit: 2 }, ctx);
    expect(textOf(page)).toStartWith("1\n2\n");
    writeFileSync(join(spill, "zot-bash-0000000000aa.log"), "someone else's output\n");
    const other = await fileTool("read").execute({ path: join(spill, "zot-bash-0000000000aa.log") }, ctx);
    expect(other.status).toBe("blocked");
    expect((await fileTool("write").execute({ path, content: "x" }, ctx)).status).toBe("blocked");
  });
  test("read may open its own spill file when the spill directory is reached through a symlink ($ZOT_HOME behind a link)", async () => {
    const { base, root } = jail();
    mkdirSync(join(base, "real-home"));
    symlinkSync(join(base, "real-home"), join(base, "home-link"));
    const capture = new TailCapture({ spillDir: join(base, "home-link", "tmp"), maxBytes: 10 });
    await capture.append(new TextEncoder().encode("0123456789\nabcdef\n"));
    const path = (await capture.finish()).fullOutputPath;
    expect(path).toStartWith(join(base, "home-link", "tmp", "zot-bash-"));
    const page = await fileTool("read").execute({ path }, makeContext(root, { jailRoot: root }));
    expect(page.status).toBeUndefined();
    expect(textOf(page)).toBe("0123456789\nabcdef\n");
  });
});

test("the macOS profile denies by default and opens network only on request", () => {
  const closed = seatbeltProfile(1, false);
  expect(closed).toStartWith("(version 1)\n(deny default)\n");
  expect(closed).toContain('(allow file-write* (subpath (param "JAIL")) (subpath (param "TMP")))');
  // Later rules win in a seatbelt profile: the project's .zot stays read-only.
  expect(closed.indexOf('(deny file-write* (subpath (param "JAIL_ZOT")))')).toBeGreaterThan(closed.indexOf('(allow file-write* (subpath (param "JAIL"))'));
  expect(closed).toContain('(subpath (param "READ_0"))');
  expect(closed).not.toContain("network");
  expect(seatbeltProfile(0, true)).toContain("(allow network*)");
});
