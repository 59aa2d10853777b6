/**
 * `zot mcp` end to end through the compiled binary in a temp ZOT_HOME:
 * usage errors (exit 2), the add/list/disable/enable/remove round trip
 * (file contents, 0600, unknown keys kept), a corrupted mcp.json (named,
 * never overwritten), project vs global vs --mcp precedence, and doctor
 * (through the run's own MCP client) against the Python stdio server (good,
 * invalid schema, crash, never initializes: bounded, exit 1, no process
 * left), the hostile TypeScript server (name rules, tool cap, protocol
 * version), two servers sharing tool names, and the Streamable HTTP test
 * server (bearer from ${VAR}, 401 without it).
 */
import { afterAll, afterEach, beforeEach, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type RunResult, cleanEnv, runZot, tempDir, zotBinary } from "../support/binary.ts";
import { exitWithin, isAlive } from "../support/processes.ts";
import { removeTempDirs } from "../support/temp.ts";
import { startMcpHttpServer } from "../fixtures/mcp/http-server.ts";
import { parseMainFlags } from "../../src/cli/flags.ts";

afterAll(removeTempDirs);

const DOCTOR_SERVER = join(import.meta.dir, "..", "fixtures", "mcp", "doctor-server.py");

let home: string;
let cwd: string;
let globalFile: string;
let projectFile: string;

beforeEach(() => {
  const base = tempDir("zot-mcp-cli-");
  home = join(base, "home");
  cwd = join(base, "project");
  mkdirSync(home);
  mkdirSync(cwd);
  globalFile = join(home, "mcp.json");
  projectFile = join(cwd, ".zot", "mcp.json");
});

function mcp(args: readonly string[], env?: Record<string, string | undefined>): Promise<RunResult> {
  return runZot(["mcp", ...args], { home, cwd, env });
}

function readJson(path: string): Record<string, unknown> {
  return JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
}

function expectUsageError(result: RunResult, line: string): void {
  expect(result.code).toBe(2);
  expect(result.stdout).toBe("");
  expect(result.stderr).toBe(`zot: ${line}\nrun 'zot mcp --help' for usage\n`);
}

describe("zot mcp usage", () => {
  test("--mcp <file> is a repeatable top-level flag, listed in zot --help with zot mcp", async () => {
    expect(parseMainFlags(["--mcp", "a.json", "-p", "hi", "--mcp=b.json"]).mcp).toEqual(["a.json", "b.json"]);
    expect(parseMainFlags([]).mcp).toEqual([]);
    const help = await runZot(["--help"], { home, cwd });
    expect(help.stdout).toContain("--mcp <file>");
    expect(help.stdout).toContain("zot mcp <command>");
  });

  test("--help for the group and every subcommand", async () => {
    const group = await mcp(["--help"]);
    expect(group.code).toBe(0);
    expect(group.stdout).toContain("USAGE zot mcp list|add|remove|enable|disable|doctor");
    for (const sub of ["list", "add", "remove", "enable", "disable", "doctor"]) {
      const result = await mcp([sub, "--help"]);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(`zot mcp ${sub}`);
    }
    const add = await mcp(["add", "--help"]);
    expect(add.stdout).toContain("--header");
    expect(add.stdout).toContain("USAGE zot mcp add [OPTIONS] <NAME> [-- <COMMAND> [ARGS…]]");
    expect((await mcp(["help", "add"])).stdout).toBe(add.stdout);
  });

  test("unknown commands and flags, missing and extra arguments, bad add forms exit 2", async () => {
    expectUsageError(await mcp(["frob"]), 'unknown mcp command "frob"');
    expectUsageError(await mcp(["list", "--all"]), 'unknown flag "--all"');
    expectUsageError(await mcp(["doctor", "--timout", "5"]), 'unknown flag "--timout" (did you mean --timeout?)');
    expectUsageError(await mcp(["lsit"]), "unknown mcp command \"lsit\" (did you mean 'zot mcp list'?)");
    expectUsageError(await mcp(["help", "remvoe"]), "unknown mcp command \"remvoe\" (did you mean 'zot mcp remove'?)");
    expectUsageError(await mcp(["enable"]), "'zot mcp enable' needs a <name> argument");
    expectUsageError(await mcp(["remove", "a", "b"]), "unexpected argument \"b\" for 'zot mcp remove'");
    expectUsageError(await mcp(["add", "x"]), "'zot mcp add' needs -- <command> [args…] (stdio) or --url <url> (Streamable HTTP)");
    expectUsageError(await mcp(["add", "x", "--url", "https://h/mcp", "--", "cmd"]), "give either --url <url> or -- <command> [args…], not both");
    expectUsageError(await mcp(["add", "x", "--url", "ftp://h/x"]), "--url: expected an http:// or https:// URL (got ftp:)");
    expectUsageError(await mcp(["add", "bad name", "--", "cmd"]), 'server name "bad name" must be 1-64 letters, digits, _ . - (starting with a letter, digit or _)');
    expectUsageError(await mcp(["add", "x", "--env", "NOEQUALS", "--", "cmd"]), '--env needs K=V with a valid variable name (got "NOEQUALS")');
    expectUsageError(await mcp(["add", "x", "--header", "A=b", "--", "cmd"]), "--header is for HTTP servers (--url); a stdio server takes --env");
    expectUsageError(await mcp(["doctor", "--timeout", "soon"]), '--timeout must be a whole number of milliseconds from 1 to 600000 (got "soon")');
  });
});

test("add refuses a header or env value with a line break or NUL (a run could never send it)", async () => {
  const header = await mcp(["add", "hh", "--url", "https://example.com/mcp", "--header", "X-Evil=a\nb"]);
  expect(header.code).toBe(2);
  expect(header.stderr).toStartWith("zot: --header X-Evil: the value holds a line break or NUL\n");
  const env = await mcp(["add", "ee", "--env", "A=x\ry", "--", "srv"]);
  expect(env.code).toBe(2);
  expect(existsSync(globalFile)).toBe(false);
});

test("list shows ${VAR}s as written: a token from the environment is never printed (text or --json)", async () => {
  writeFileSync(globalFile, JSON.stringify({ mcpServers: { u: { url: "https://example.invalid/mcp?key=${TOK}" }, a: { command: "srv", args: ["--token", "${TOK}"] } } }));
  for (const args of [["list"], ["list", "--json"]]) {
    const listed = await mcp(args, { TOK: "supersecret" });
    expect(listed.code).toBe(0);
    expect(listed.stdout).not.toContain("supersecret");
    expect(listed.stdout).toContain("${TOK}");
  }
});

describe("zot mcp editing", () => {
  test("add, list, disable, enable, remove: the file keeps other keys and servers, global is 0600, values of headers are never listed", async () => {
    writeFileSync(globalFile, JSON.stringify({ theme: "kept", mcpServers: { other: { command: "other-cmd", alwaysAllow: ["x"] } } }));
    chmodSync(globalFile, 0o644);
    const empty = await mcp(["list"]);
    expect(empty.stdout).toContain("other");

    const added = await mcp(["add", "files", "--env", "ROOT=/srv", "--", "npx", "-y", "server files", "--flag"]);
    expect([added.code, added.stdout]).toEqual([0, `added files (stdio) to ${globalFile}\n`]);
    const web = await mcp(["add", "web", "--url", "https://example.com/mcp", "--header", "Authorization=Bearer s3cret-token", "--prefix", "w_"]);
    expect(web.code).toBe(0);
    expect(readJson(globalFile)).toEqual({
      theme: "kept",
      mcpServers: {
        other: { command: "other-cmd", alwaysAllow: ["x"] },
        files: { command: "npx", args: ["-y", "server files", "--flag"], env: { ROOT: "/srv" } },
        web: { type: "http", url: "https://example.com/mcp", headers: { Authorization: "Bearer s3cret-token" }, prefix: "w_" },
      },
    });
    expect(statSync(globalFile).mode & 0o777).toBe(0o600);
    const again = await mcp(["add", "files", "--", "x"]);
    expect(again.code).toBe(1);
    expect(again.stderr).toBe(`zot: ${globalFile}: server "files" already exists (remove it first: zot mcp remove files)\n`);

    const listed = await mcp(["list"]);
    expect(listed.code).toBe(0);
    expect(listed.stdout.split("\n")[0]).toBe("NAME   SCOPE   TRANSPORT  ENABLED  COMMAND / URL");
    expect(listed.stdout).toContain("files  global  stdio      yes      npx -y 'server files' --flag");
    expect(listed.stdout).toContain("web    global  http       yes      https://example.com/mcp");
    const json = await mcp(["list", "--json"]);
    expect(json.stdout).not.toContain("s3cret");
    expect(json.stdout).not.toContain("/srv");
    const servers = (JSON.parse(json.stdout) as { servers: Record<string, unknown>[] }).servers;
    expect(servers.find((server) => server.name === "web")).toMatchObject({ transport: "http", headers: ["Authorization"], prefix: "w_", enabled: true });

    expect((await mcp(["disable", "files"])).stdout).toBe(`disabled files (${globalFile})\n`);
    expect((readJson(globalFile).mcpServers as Record<string, unknown>).files).toMatchObject({ disabled: true });
    expect((await mcp(["disable", "files"])).stdout).toBe(`files is already disabled (${globalFile})\n`);
    expect((await mcp(["list"])).stdout).toContain("files  global  stdio      no ");
    expect((await mcp(["enable", "files"])).stdout).toBe(`enabled files (${globalFile})\n`);
    expect((readJson(globalFile).mcpServers as Record<string, unknown>).files).toEqual({ command: "npx", args: ["-y", "server files", "--flag"], env: { ROOT: "/srv" } });

    expect((await mcp(["rm", "files"])).stdout).toBe(`removed files from ${globalFile}\n`);
    const missing = await mcp(["remove", "files"]);
    expect([missing.code, missing.stderr]).toEqual([1, `zot: ${globalFile}: no server "files"\n`]);
    expect(Object.keys(readJson(globalFile).mcpServers as object)).toEqual(["other", "web"]);
    expect(readJson(globalFile).theme).toBe("kept");
  });

  test("a corrupted mcp.json is named and never overwritten", async () => {
    const broken = '{"mcpServers": {"a": {"command": "x"},, }';
    writeFileSync(globalFile, broken);
    for (const args of [["add", "b", "--", "cmd"], ["remove", "a"], ["disable", "a"]]) {
      const result = await mcp(args);
      expect(result.code).toBe(1);
      expect(result.stderr).toStartWith(`zot: ${globalFile}: not valid JSON (`);
      expect(result.stderr).toContain("not changed");
      expect(readFileSync(globalFile, "utf8")).toBe(broken);
    }
    const listed = await mcp(["list"]);
    expect(listed.code).toBe(1);
    expect(listed.stderr).toStartWith(`zot: ${globalFile}: not valid JSON (`);
    // A broken project file may define the name (then its entry is in effect): disable refuses to guess.
    writeFileSync(globalFile, JSON.stringify({ mcpServers: { a: { command: "x" } } }));
    mkdirSync(join(cwd, ".zot"));
    writeFileSync(projectFile, broken);
    const guessed = await mcp(["disable", "a"]);
    expect([guessed.code, guessed.stderr]).toEqual([1, expect.stringMatching(new RegExp(`^zot: ${projectFile.replaceAll(".", "\\.")}: not valid JSON`))]);
    expect(readJson(globalFile)).toEqual({ mcpServers: { a: { command: "x" } } });
    rmSync(projectFile);
    writeFileSync(globalFile, JSON.stringify({ mcpServers: { a: { command: "x", args: [1] }, ok: { command: "y" } } }));
    const partial = await mcp(["list"]);
    expect(partial.code).toBe(1);
    expect(partial.stdout).toContain("ok ");
    expect(partial.stderr).toBe(`zot: ${globalFile}: server "a": field "args.0": expected a string\n`);
  });

  test("project wins over global by name, --mcp over both; --project edits the project file", async () => {
    expect((await mcp(["add", "shared", "--", "global-cmd"])).code).toBe(0);
    const project = await mcp(["add", "shared", "--project", "--", "project-cmd"]);
    expect(project.stdout).toBe(`added shared (stdio) to ${projectFile}\n`);
    expect(statSync(projectFile).mode & 0o777).toBe(0o644);
    expect((await mcp(["add", "shared", "--", "x"])).code).toBe(1);
    const onlyGlobal = await mcp(["add", "g2", "--", "g2-cmd"]);
    expect(onlyGlobal.stderr).toBe("");
    writeFileSync(join(home, "..", "one.json"), JSON.stringify({ mcpServers: { shared: { url: "http://127.0.0.1:9/mcp" } } }));
    expect((await mcp(["list"])).stdout).toMatch(/^shared +project +stdio +yes +project-cmd$/m);
    expect((await mcp(["list", "--mcp", join(home, "..", "one.json")])).stdout).toMatch(/^shared +flag +http +yes +http:\/\/127\.0\.0\.1:9\/mcp$/m);
    // disable acts on the entry in effect (the project's); remove needs --project for it.
    expect((await mcp(["disable", "shared"])).stdout).toBe(`disabled shared (${projectFile})\n`);
    expect((readJson(globalFile).mcpServers as Record<string, Record<string, unknown>>).shared!.disabled).toBeUndefined();
    expect((await mcp(["remove", "shared", "--project"])).stdout).toBe(`removed shared from ${projectFile}\n`);
    expect((await mcp(["list"])).stdout).toMatch(/^shared +global +stdio +yes +global-cmd$/m);
    await mcp(["add", "ponly", "--project", "--", "p"]);
    const wrongScope = await mcp(["remove", "ponly"]);
    expect([wrongScope.code, wrongScope.stderr]).toEqual([1, `zot: ${globalFile}: no server "ponly" (it is in ${projectFile}: pass --project)\n`]);
  });
});

describe("zot mcp doctor", () => {
  test("a good stdio server: protocol, server info, tools over two pages; exit 0", async () => {
    await mcp(["add", "py", "--", "python3", DOCTOR_SERVER, "good"]);
    const result = await mcp(["doctor"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^✓ py: ok \(stdio, global, \d+ ms\)\n {4}protocol: 2025-06-18\n {4}server: doctor-py 0.9.1\n {4}tools: 2 \(py__echo, py__add\)\n\n1 server checked: 1 ok, 0 failed\n$/);
  });

  test("invalid schema, crash and a disabled server: reported, exit 1", async () => {
    await mcp(["add", "bad", "--", "python3", DOCTOR_SERVER, "bad-schema"]);
    await mcp(["add", "crash", "--", "python3", DOCTOR_SERVER, "crash"]);
    await mcp(["add", "off", "--", "python3", DOCTOR_SERVER, "good"]);
    await mcp(["disable", "off"]);
    const result = await mcp(["doctor", "--json"]);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as { servers: { server: { name: string }; report?: Record<string, unknown> }[] };
    const byName = Object.fromEntries(report.servers.map((entry) => [entry.server.name, entry.report]));
    expect(byName.bad).toMatchObject({
      ok: false, state: "ready", tools: ["bad__echo", "bad__add"], problems: [],
      skipped: [{ tool: "broken", reason: 'invalid inputSchema: the schema must have "type": "object" (got "string")' }],
    });
    expect(byName.crash).toMatchObject({ ok: false, state: "failed", error: "stopped during initialize: exited with code 3", logPath: join(home, "logs", "mcp-crash.log") });
    expect(byName.crash!.logTail).toContain("doctor-server: cannot open the database");
    const text = await mcp(["doctor", "bad"]);
    expect(text.stdout).toContain('\n    tools: 2 (bad__echo, bad__add)\n    ✗ skipped broken: invalid inputSchema: the schema must have "type": "object" (got "string")\n');
    expect(text.stdout).toContain("1 server checked: 0 ok, 1 with problems, 0 failed");
    expect(byName.off).toBeUndefined();
    const one = await mcp(["doctor", "off"]);
    expect([one.code, one.stdout.split("\n")[0]]).toEqual([0, expect.stringMatching(/^✓ off: ok/)]);
    const unknown = await mcp(["doctor", "nope"]);
    expect([unknown.code, unknown.stderr]).toEqual([1, 'zot: no MCP server named "nope"\n']);
  });

  test("a project server starts only in a trusted project (or with --trust / ZOT_TRUST=1); global servers always", async () => {
    const marker = join(home, "..", "project-started");
    const start = `echo started >> '${marker}'; exec python3 '${DOCTOR_SERVER}' good`;
    await mcp(["add", "--project", "local", "--", "sh", "-c", start]);
    await mcp(["add", "py", "--", "python3", DOCTOR_SERVER, "good"]);
    const untrusted = await mcp(["doctor"]);
    expect(existsSync(marker)).toBe(false);
    expect(untrusted.code).toBe(0);
    expect(untrusted.stdout).toContain(`- local: not started (stdio, project): project untrusted; allow with 'zot mcp doctor --trust' (this run) or 'zot trust ${cwd}' (record it)\n`);
    expect(untrusted.stdout).toMatch(/✓ py: ok/);
    const json = JSON.parse((await mcp(["doctor", "--json"])).stdout) as { servers: { server: { name: string }; notStarted?: string }[] };
    expect(json.servers.find((entry) => entry.server.name === "local")?.notStarted).toMatch(/^project untrusted;/);
    expect(existsSync(marker)).toBe(false);
    expect((await mcp(["doctor", "--trust", "local"])).stdout).toMatch(/^✓ local: ok/);
    expect((await mcp(["doctor", "local"], { ZOT_TRUST: "1" })).code).toBe(0);
    expect(readFileSync(marker, "utf8")).toBe("started\nstarted\n");
    expect((await runZot(["trust"], { home, cwd })).code).toBe(0);
    expect((await mcp(["doctor", "local"])).stdout).toMatch(/^✓ local: ok/);
    expect(readFileSync(marker, "utf8")).toBe("started\nstarted\nstarted\n");
  });

  test("an untrusted project entry that shadows a global one: doctor checks the global one, which a run starts", async () => {
    const marker = join(home, "..", "project-started");
    await mcp(["add", "--project", "shared", "--", "sh", "-c", `echo started >> '${marker}'; exec python3 '${DOCTOR_SERVER}' good`]);
    await mcp(["add", "shared", "--", "python3", DOCTOR_SERVER, "good"]);
    const result = await mcp(["doctor"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`- shared: not started (stdio, project): project untrusted; allow with 'zot mcp doctor --trust' (this run) or 'zot trust ${cwd}' (record it); a run starts the global "shared" below instead\n✓ shared: ok (stdio, global, `);
    expect(result.stdout).toContain("1 server checked: 1 ok, 0 failed");
    const json = JSON.parse((await mcp(["doctor", "--json", "shared"])).stdout) as { servers: { server: { name: string; scope: string }; report?: { ok: boolean }; notStarted?: string }[] };
    expect(json.servers.map((entry) => [entry.server.scope, entry.report?.ok ?? entry.notStarted?.slice(0, 17)])).toEqual([["project", "project untrusted"], ["global", true]]);
    expect(existsSync(marker)).toBe(false);
    // Trusted, the project's entry is the one in effect, as in a run.
    const trusted = await mcp(["doctor", "--trust"]);
    expect(trusted.stdout).toMatch(/^✓ shared: ok \(stdio, project, /m);
    expect(trusted.stdout).not.toContain("global");
    expect(readFileSync(marker, "utf8")).toBe("started\n");
  });

  test("a server that never initializes: bounded by --timeout, exit 1, its process group is gone", async () => {
    const pidfile = join(home, "..", "pids");
    await mcp(["add", "silent", "--", "python3", DOCTOR_SERVER, "never-init", pidfile]);
    const result = await mcp(["doctor", "--timeout", "1500"]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("✗ silent: failed");
    expect(result.stdout).toMatch(/error: did not (answer )?initialize within 1\.5 s\n/);
    const pids = readFileSync(pidfile, "utf8").trim().split("\n").map(Number);
    expect(pids).toHaveLength(2);
    for (const pid of pids) expect(isAlive(pid)).toBe(false);
  });

  test("SIGINT while a server is starting: every server is closed, what was found is printed, exit 130", async () => {
    const pidfile = join(home, "..", "pids");
    await mcp(["add", "silent", "--", "python3", DOCTOR_SERVER, "never-init", pidfile]);
    await mcp(["add", "py", "--", "python3", DOCTOR_SERVER, "good"]);
    const proc = Bun.spawn([await zotBinary(), "mcp", "doctor", "--timeout", "60000"], { cwd, env: cleanEnv(home), stdout: "pipe", stderr: "pipe" });
    try {
      // Both started: the silent one wrote its pids, the good one is ready (its log says so).
      const goodLog = join(home, "logs", "mcp-py.log");
      const ready = (): boolean => existsSync(pidfile) && readFileSync(pidfile, "utf8").trim().split("\n").length === 2 && existsSync(goodLog) && readFileSync(goodLog, "utf8").includes("ready in");
      for (let waited = 0; !ready() && waited < 20_000; waited += 50) await Bun.sleep(50);
      expect(ready()).toBe(true);
      proc.kill("SIGINT");
      expect(await exitWithin(proc, 10_000)).toBe(130);
      const stdout = await new Response(proc.stdout).text();
      expect(stdout).toContain("✗ silent: failed (stdio, global)\n    error: interrupted before it was ready\n");
      expect(stdout).toContain("✓ py: ok (stdio, global, ");
      const pids = readFileSync(pidfile, "utf8").trim().split("\n").map(Number);
      for (const pid of pids) expect(isAlive(pid)).toBe(false);
    } finally {
      proc.kill("SIGKILL");
      await proc.exited;
    }
  });

  test("a server that floods stdout with one endless line, and one with a missing cwd: reported at once, exit 1", async () => {
    writeFileSync(globalFile, JSON.stringify({ mcpServers: {
      flood: { command: "sh", args: ["-c", "yes | tr -d '\\n'"] },
      nocwd: { command: "true", cwd: "missing-dir" },
    } }));
    const result = await mcp(["doctor", "--timeout", "20000", "--json"]);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as { servers: { server: { name: string }; report: { error?: string } }[] };
    const errors = Object.fromEntries(report.servers.map((entry) => [entry.server.name, entry.report.error]));
    expect(errors.flood).toBe("stopped during initialize: sent a message larger than 4194304 bytes");
    expect(errors.nocwd).toBe(`"cwd" ${join(home, "missing-dir")} is not a directory`);
  });

  test("what a run would load: the name rules, the tool cap, protocol versions, names two servers share", async () => {
    const hostile = join(import.meta.dir, "..", "fixtures", "mcp", "hostile.ts");
    writeFileSync(globalFile, JSON.stringify({ mcpServers: {
      many: { command: process.execPath, args: [hostile, "many-tools"] },
      old: { command: process.execPath, args: [hostile, "bad-version"] },
      first: { command: "python3", args: [DOCTOR_SERVER, "good"], prefix: "same__" },
      second: { command: "python3", args: [DOCTOR_SERVER, "good"], prefix: "same__" },
    } }));
    const result = await mcp(["doctor", "--json"]);
    expect(result.code).toBe(1);
    type Report = { state: string; ok: boolean; tools: string[]; skipped: { tool: string; reason: string }[]; problems: string[]; error?: string };
    const parsed = JSON.parse(result.stdout) as { servers: { server: { name: string }; report: Report }[] };
    const byName = Object.fromEntries(parsed.servers.map((entry) => [entry.server.name, entry.report]));
    const many = byName.many!;
    // 200 listed: the first 128 are considered; names made provider-safe; a duplicate after that, a nameless tool and a too deep schema skipped.
    expect(many.state).toBe("ready");
    expect(many.problems).toEqual(["mcp server many: more than 128 tools; the rest were not loaded"]);
    expect(many.tools).toContain("many__weird_name_with_dots");
    expect(many.tools).toContain("many__a_b");
    expect(many.tools.every((name) => /^[A-Za-z0-9_-]{1,64}$/.test(name))).toBe(true);
    expect(many.skipped.map((skipped) => skipped.tool)).toEqual(["a_b", "(name 42)", "nested"]);
    expect(many.skipped[0]!.reason).toBe('its name "many__a_b" is taken by an earlier tool of this server');
    expect(many.tools.length + many.skipped.length).toBe(128);
    expect(byName.old).toMatchObject({ state: "failed", ok: false });
    expect(byName.old!.error).toContain("zot supports 2025-06-18, 2025-03-26, 2024-11-05");
    // Both servers load the same zot names: a run keeps them with the one ready first.
    const [winner, loser] = [byName.first!, byName.second!].sort((a, b) => b.tools.length - a.tools.length);
    expect(winner).toMatchObject({ ok: true, tools: ["same__echo", "same__add"], skipped: [] });
    expect(loser).toMatchObject({ ok: false, tools: [] });
    expect(loser!.skipped.map((skipped) => skipped.tool)).toEqual(["same__echo", "same__add"]);
    const text = await mcp(["doctor", "many"]);
    expect(text.stdout).toContain(`    tools: ${many.tools.length} (many__weird_name_with_dots, many__a_b, `);
    expect(text.stdout).toContain(`, … ${many.tools.length - 32} more: --json lists all)\n`);
    expect(loser!.skipped[0]!.reason).toMatch(/^the name is taken by a tool of server (first|second) \(ready first\); a run would not add it$/);
  });

  test("a Streamable HTTP server: bearer from ${VAR}; a wrong token is a 401 that never prints the token", async () => {
    const server = startMcpHttpServer({ token: "right-token" });
    try {
      expect((await mcp(["add", "web", "--url", server.url(), "--header", "Authorization=Bearer ${MCP_TOKEN}"])).code).toBe(0);
      const good = await mcp(["doctor"], { MCP_TOKEN: "right-token" });
      expect(good.code).toBe(0);
      expect(good.stdout).toContain("✓ web: ok (http, global,");
      expect(good.stdout).toContain("server: http-echo 1.2.3");
      expect(good.stdout).toContain("tools: 1 (web__echo)");
      expect(server.deletedSessions).toHaveLength(1);
      const wrong = await mcp(["doctor"], { MCP_TOKEN: "wrong-token" });
      expect(wrong.code).toBe(1);
      expect(wrong.stdout).toContain(`error: mcp server "web" (${server.url()}): initialize: HTTP 401`);
      expect(wrong.stdout + wrong.stderr).not.toContain("wrong-token");
      const unset = await mcp(["doctor"]);
      expect(unset.code).toBe(1);
      expect(unset.stdout).toContain(`${globalFile}: server "web": field "headers.Authorization": environment variable MCP_TOKEN is not set`);
    } finally {
      await server.stop();
    }
  });
});
