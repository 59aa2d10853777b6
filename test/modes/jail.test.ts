/**
 * --jail through dist/zot: the model's bash runs in the OS sandbox (cannot
 * read or write outside the jail, can write inside it); with no sandbox on
 * PATH bash is refused with a message saying why and how to get one; the
 * file tools refuse a hard-linked file whose other name is outside; read
 * opens the full-output file of a jailed command, also with $ZOT_HOME
 * behind a symlink.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, linkSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { waitFor } from "../support/extensions.ts";
import { toolResultsSent, useModeEnv, type ModeEnv } from "./helpers.ts";

let env: ModeEnv;
let outside: string;
useModeEnv((created) => {
  env = created;
  outside = join(env.base, "outside");
  mkdirSync(outside);
  writeFileSync(join(outside, "secret.txt"), "the launch codes\n");
});

describe.if(process.platform === "linux")("bash under --jail", () => {
  test.skipIf(Bun.which("bwrap") === null)("cannot read or write outside the jail; writes inside it (skipped where bwrap is missing; .ci/run installs it)", async () => {
    env.server.enqueue(
      {
        type: "tool_calls",
        calls: [
          { id: "read_out", name: "bash", arguments: { command: `cat ${outside}/secret.txt` } },
          { id: "write_out", name: "bash", arguments: { command: `touch ${outside}/x` } },
          { id: "write_in", name: "bash", arguments: { command: "echo hi > inside.txt && cat inside.txt" } },
        ],
      },
      { type: "text", text: "done" },
    );
    const result = await env.run(["-p", "try", "--jail", ...env.providerArgs()]);
    expect(result.code).toBe(0);
    const sent = toolResultsSent(env.server.requests[1]);
    expect(sent.get("read_out")).toContain(`cat: ${outside}/secret.txt: No such file or directory\n\n[exit 1]`);
    expect(sent.get("read_out")).not.toContain("launch codes");
    expect(sent.get("write_out")).toContain("\n\n[exit 1]");
    expect(existsSync(join(outside, "x"))).toBe(false);
    expect(sent.get("write_in")).toMatch(/^\$ echo hi > inside\.txt && cat inside\.txt\n\nhi\n\n\[exit 0\]  Took /);
    expect(readFileSync(join(env.cwd, "inside.txt"), "utf8")).toBe("hi\n");
  });

  test.skipIf(Bun.which("bwrap") === null)("read opens a command's full-output file although $ZOT_HOME is reached through a symlink", async () => {
    const home = join(env.base, "home-link");
    symlinkSync(env.home, home);
    // The command holds on until the test has scripted the read of its spill file (named only once it exists).
    const command = "seq 1 20000; for i in $(seq 400); do [ -e go ] && break; sleep 0.05; done";
    env.server.enqueue({ type: "tool_calls", calls: [{ id: "seq", name: "bash", arguments: { command } }] });
    const running = env.run(["-p", "count", "--jail", ...env.providerArgs()], { home });
    const spills = (): string[] => (existsSync(join(env.home, "tmp")) ? readdirSync(join(env.home, "tmp")) : []);
    expect(await waitFor(() => spills().length === 1, 10_000)).toBe(true);
    const spill = join(home, "tmp", spills()[0] as string);
    env.server.enqueue({ type: "tool_calls", calls: [{ id: "read", name: "read", arguments: { path: spill, limit: 2 } }] }, { type: "text", text: "done" });
    writeFileSync(join(env.cwd, "go"), "");
    const result = await running;
    expect(result.code).toBe(0);
    expect(toolResultsSent(env.server.requests[1]).get("seq")).toContain(`(full output: ${spill})`);
    expect(toolResultsSent(env.server.requests[2]).get("read")).toStartWith("1\n2\n");
  });

  test("without bwrap on PATH bash is refused, saying why and how to get one", async () => {
    const bin = join(env.base, "bin");
    mkdirSync(bin);
    env.server.enqueue(
      { type: "tool_calls", calls: [{ id: "b", name: "bash", arguments: { command: "touch ran" } }] },
      { type: "text", text: "done" },
    );
    const result = await env.run(["-p", "try", "--jail", ...env.providerArgs()], { env: { PATH: bin } });
    expect(result.code).toBe(0);
    expect(toolResultsSent(env.server.requests[1]).get("b")).toBe(
      "bash is refused under --jail: no OS sandbox is available (bubblewrap `bwrap` is not on PATH). " +
        "Install bubblewrap (Debian/Ubuntu: `apt-get install bubblewrap`, Fedora: `dnf install bubblewrap`, " +
        "Arch: `pacman -S bubblewrap`) (or run zot without --jail).",
    );
    expect(existsSync(join(env.cwd, "ran"))).toBe(false);
  });
});

test("--jail: the file tools refuse a hard link to a file outside the jail", async () => {
  linkSync(join(outside, "secret.txt"), join(env.cwd, "notes.txt"));
  env.server.enqueue(
    {
      type: "tool_calls",
      calls: [
        { id: "r", name: "read", arguments: { path: "notes.txt" } },
        { id: "e", name: "edit", arguments: { path: "notes.txt", edits: [{ oldText: "launch", newText: "lunch" }] } },
      ],
    },
    { type: "text", text: "done" },
  );
  const result = await env.run(["-p", "read it", "--jail", ...env.providerArgs()]);
  expect(result.code).toBe(0);
  const sent = toolResultsSent(env.server.requests[1]);
  for (const id of ["r", "e"]) {
    expect(sent.get(id)).toStartWith('jailed: "notes.txt" has 2 hard links; under --jail a file with more than one link is refused');
    expect(sent.get(id)).not.toContain("launch codes");
  }
  expect(readFileSync(join(outside, "secret.txt"), "utf8")).toBe("the launch codes\n");
});
