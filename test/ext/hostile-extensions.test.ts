/**
 * Hostile extensions through the compiled binary (hostile.py fixture, the
 * stand-in model): invalid registrations are rejected by name and listed by
 * `zot ext doctor` while the extension's good tool still works in a print
 * run; the cap on all tool definitions together; a flood of invalid frames
 * is counted and logged at a bounded rate; a malformed reply fails its call
 * at once instead of at the deadline; a stderr-spamming extension's log
 * rotates and stays bounded; log files are 0600 in a 0700 directory and
 * `zot ext logs` prints both generations.
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cleanEnv, zotBinary } from "../support/binary.ts";
import { BEHAVE, FIXTURES, copyFixture } from "../support/extensions.ts";
import { requestToolNames, toolResultsSent, useModeEnv, type ModeEnv } from "../modes/helpers.ts";

const HOSTILE = join(FIXTURES, "hostile.py");
const MAX_LOG_BYTES = 1024 * 1024;

let env: ModeEnv;
useModeEnv((created) => (env = created));

/** Installs a hostile.py extension under $ZOT_HOME/extensions/<name>. */
function hostile(name: string, modes: readonly string[]): string {
  const dir = join(env.home, "extensions", name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "extension.json"), JSON.stringify({ name, exec: HOSTILE, args: [name, ...modes], language: "python" }));
  return dir;
}

function logPath(name: string): string {
  return join(env.home, "logs", `ext-${name}.log`);
}

function toolCallRun(): void {
  env.server.enqueue(
    { type: "tool_calls", calls: [{ id: "call_good", name: "good_tool", arguments: { text: "hi" } }] },
    { type: "text", text: "done" },
  );
}

describe("registration validation", () => {
  test("bad names, bad schemas, long descriptions and tools past the cap are rejected; doctor lists them; the good tool works", async () => {
    hostile("hostile", ["bad-registrations", "junk-at-start=1000"]);
    const doctor = await env.run(["ext", "doctor"]);
    const out = doctor.stdout;
    expect(out).toContain("✓ hostile 1.0.0 (global) — ready");
    expect(out).toContain("commands: /good-cmd");
    expect(out).toMatch(/tools: good_tool, many_0, many_1, .*many_126\n/);
    expect(out).not.toMatch(/tools: .*many_127/);
    expect(out).toContain("rejected registrations:");
    const reasons = [
      `hostile: tool "bad name!" rejected: the name must be 1-64 characters of letters, digits, '_' and '-'`,
      `hostile: tool "${"t".repeat(65)}" rejected: the name must be 1-64 characters`,
      'hostile: tool "string_schema" rejected: the schema must be a JSON Schema object, not a string',
      'hostile: tool "array_type" rejected: the schema must have "type": "object" (got "array")',
      'hostile: tool "deep_schema" rejected: the schema nests deeper than 128 levels',
      'hostile: tool "long_desc" rejected: the description is 17000 characters, over the limit of 16384',
      `hostile: command "bad cmd" rejected: the name must be 1-64 characters`,
      'hostile: tool "many_127" rejected: the extension already has 128 tools (the limit)',
      'hostile: tool "many_129" rejected: the extension already has 128 tools (the limit)',
    ];
    for (const reason of reasons) expect(out).toContain(reason);
    // Dropped frames are counted and the last reasons shown.
    expect(out).toContain("dropped frames: 1,000; last 5:");
    expect(out).toContain('- unknown frame type "no_such_frame" dropped');
    expect(out).toContain("10 problem(s) found");
    expect(doctor.code).toBe(1);

    toolCallRun();
    const run = await env.run(["-p", "use the good tool", ...env.providerArgs()]);
    expect(run.stderr).toBe("");
    expect(run.stdout).toBe("done\n");
    expect(run.code).toBe(0);
    const names = requestToolNames(env.server.requests[0]);
    expect(names).toContain("good_tool");
    for (const rejected of ["bad name!", "t".repeat(65), "string_schema", "array_type", "deep_schema", "long_desc", "many_127"]) {
      expect(names).not.toContain(rejected);
    }
    expect(names.filter((name) => name.startsWith("many_"))).toHaveLength(127);
    expect(toolResultsSent(env.server.requests[1]).get("call_good")).toBe('good: {"text": "hi"}');
    const log = readFileSync(logPath("hostile"), "utf8");
    expect(log).toContain(`[zot] tool "bad name!" rejected: the name must be`);
    expect(log).toContain('[zot] tool "deep_schema" rejected: the schema nests deeper than 128 levels');
  });

  test("commands named like the chat screen's /theme and /quit are refused as built-ins (they could never run there), also for -p", async () => {
    for (const [name, command] of [["themer", "theme"], ["quitter", "quit"], ["agenter", "agents"]] as const) {
      const dir = join(env.home, "extensions", name);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, "extension.json"), JSON.stringify({ name, exec: BEHAVE, args: [name, `command=${command}`], language: "python" }));
    }
    const doctor = await env.run(["ext", "doctor"]);
    expect(doctor.stdout).toContain("themer: command /theme not registered, already taken by built-in");
    expect(doctor.stdout).toContain("quitter: command /quit not registered, already taken by built-in");
    // /agents yields to an extension's command of that name.
    expect(doctor.stdout).toContain("commands: /agents");
    env.server.enqueue({ type: "text", text: "the model got it" });
    const run = await env.run(["-p", "/theme", ...env.providerArgs()]);
    expect(run.stdout).toBe("the model got it\n");
    expect(run.code).toBe(0);
  });

  test("a registration that would push all tool definitions past 256 KiB is rejected; earlier ones stay", async () => {
    hostile("bulky", ["bulky=20"]);
    const doctor = await env.run(["ext", "doctor"]);
    expect(doctor.stdout).toMatch(/tools: good_tool, bulk_0, .*bulk_16\n/);
    for (const name of ["bulk_17", "bulk_18", "bulk_19"]) {
      expect(doctor.stdout).toMatch(new RegExp(`bulky: tool "${name}" rejected: its definition \\(15,084 bytes\\) would bring all extension tool definitions to [0-9,]+ bytes, over the limit of 262,144`));
    }
    toolCallRun();
    const run = await env.run(["-p", "use the good tool", ...env.providerArgs()]);
    expect(run.code).toBe(0);
    const body = env.server.requests[0]?.body as { tools: { name: string }[] };
    const extensionTools = body.tools.filter((tool) => tool.name === "good_tool" || tool.name.startsWith("bulk_"));
    expect(extensionTools.map((tool) => tool.name).sort()).toEqual(["good_tool", ...Array.from({ length: 17 }, (_, i) => `bulk_${i}`)].sort());
    expect(Buffer.byteLength(JSON.stringify(extensionTools))).toBeLessThan(256 * 1024);
  });
});

describe("dropped frames", () => {
  test("a million invalid frames: the call still completes and the log stays small, with a summary of what was not logged", async () => {
    hostile("flood", ["junk-on-call=1000000"]);
    toolCallRun();
    const run = await env.run(["-p", "use the good tool", ...env.providerArgs()], { timeoutMs: 25_000 });
    expect(run.stderr).toBe("");
    expect(run.stdout).toBe("done\n");
    expect(toolResultsSent(env.server.requests[1]).get("call_good")).toBe('good: {"text": "hi"}');
    const log = readFileSync(logPath("flood"), "utf8");
    expect(log.length).toBeLessThan(16 * 1024);
    expect(log).toContain("[zot] malformed JSON frame dropped");
    const summarised = [...log.matchAll(/… ([0-9,]+) more dropped frames not logged in the last second/g)]
      .reduce((sum, match) => sum + Number(match[1]!.replaceAll(",", "")), 0);
    const logged = log.split("\n").filter((line) => /^\[zot\] .*dropped(: |$)/.test(line)).length;
    expect(summarised + logged).toBe(1_000_000);
  }, 30_000);
});

describe("a malformed reply", () => {
  test("a tool_result with the right id but content its schema rejects fails the call at once, naming what is wrong", async () => {
    hostile("sloppy", ["invalid-result"]);
    toolCallRun();
    const started = Date.now();
    const run = await env.run(["-p", "use the good tool", ...env.providerArgs()], { timeoutMs: 25_000 });
    // The call used to wait out the 60 s tool deadline.
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(run.stdout).toBe("done\n");
    expect(toolResultsSent(env.server.requests[1]).get("call_good")).toMatch(
      /^extension sloppy\/good_tool failed: answered with an invalid reply \(tool_result: field "content": .+\)$/,
    );
    expect(readFileSync(logPath("sloppy"), "utf8")).toContain('[zot] invalid tool_result frame dropped: field "content"');
  }, 30_000);
});

describe("an extension that floods without end", () => {
  /** A flood.sh extension beside py-hello, whose weather tool the model calls. */
  async function floodRun(stream: "stdout" | "stderr"): Promise<void> {
    const dir = join(env.home, "extensions", "flood");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "extension.json"), JSON.stringify({ name: "flood", exec: join(FIXTURES, "flood.sh"), args: ["flood", stream] }));
    copyFixture(join(env.home, "extensions"), "py-hello");
    env.server.enqueue(
      { type: "tool_calls", calls: [{ id: "call_weather", name: "weather", arguments: { city: "Oslo" } }] },
      { type: "text", text: "Foggy in Oslo." },
    );
    const run = await env.run(["-p", "weather in Oslo?", ...env.providerArgs()], { timeoutMs: 25_000 });
    expect(run.stdout).toBe("Foggy in Oslo.\n");
    expect(run.code).toBe(0);
    expect(toolResultsSent(env.server.requests[1]).get("call_weather")).toContain("Oslo: 16°C, fog");
    expect(statSync(logPath("flood")).size).toBeLessThanOrEqual(MAX_LOG_BYTES);
  }

  test("endless invalid frames on stdout: zot still starts, runs the other extension's tool and exits", async () => {
    await floodRun("stdout");
    const log = readFileSync(logPath("flood"), "utf8");
    expect(log.length).toBeLessThan(64 * 1024);
    expect(log).toMatch(/… [0-9,]+ more dropped frames not logged in the last second/);
  }, 30_000);

  test("endless stderr: zot still runs and exits; the log is capped and rotated", async () => {
    await floodRun("stderr");
    expect(statSync(`${logPath("flood")}.1`).size).toBeLessThanOrEqual(MAX_LOG_BYTES);
    expect(readFileSync(logPath("flood"), "utf8")).toContain("stderr flood line from flood\n");
  }, 30_000);
});

describe("extension logs", () => {
  test("a stderr-spamming extension: the log rotates at 1 MiB with one generation kept, and the last lines are there", async () => {
    mkdirSync(join(env.home, "logs"), { mode: 0o755 });
    chmodSync(join(env.home, "logs"), 0o755);
    writeFileSync(logPath("spam"), "old line from an earlier run\n", { mode: 0o644 });
    chmodSync(logPath("spam"), 0o644);
    hostile("spam", ["stderr-on-call=5000000"]);
    toolCallRun();
    const run = await env.run(["-p", "use the good tool", ...env.providerArgs()]);
    expect(run.stdout).toBe("done\n");
    expect(run.code).toBe(0);

    const current = logPath("spam");
    const rotated = `${current}.1`;
    expect(statSync(current).size).toBeLessThanOrEqual(MAX_LOG_BYTES);
    expect(statSync(rotated).size).toBeLessThanOrEqual(MAX_LOG_BYTES);
    expect(statSync(rotated).size).toBeGreaterThan(MAX_LOG_BYTES - 200);
    expect(statSync(current).mode & 0o777).toBe(0o600);
    expect(statSync(rotated).mode & 0o777).toBe(0o600);
    expect(statSync(join(env.home, "logs")).mode & 0o777).toBe(0o700);
    const text = readFileSync(current, "utf8");
    expect(text).toContain("stderr spam done\n");
    // Rotation cuts at line boundaries.
    expect(readFileSync(rotated, "utf8")).toMatch(/^(\n|\[zot\]|spam line \d{8} x{60}\n)/);
    for (const line of `${readFileSync(rotated, "utf8")}${text}`.split("\n")) {
      if (line.startsWith("spam line")) expect(line).toMatch(/^spam line \d{8} x{60}$/);
    }

    const printed = await env.run(["ext", "logs", "spam"]);
    expect(printed.code).toBe(0);
    expect(printed.stdout).toBe(`${readFileSync(rotated, "utf8")}${text}`);
  });

  test("zot ext logs -f keeps following across rotations", async () => {
    hostile("spam", ["stderr-on-call=3000000"]);
    mkdirSync(join(env.home, "logs"));
    writeFileSync(logPath("spam"), "before the run\n");
    const follower = Bun.spawn([await zotBinary(), "ext", "logs", "-f", "spam"], {
      cwd: env.cwd, env: cleanEnv(env.home), stdin: "ignore", stdout: "pipe", stderr: "pipe",
    });
    const killer = setTimeout(() => follower.kill("SIGKILL"), 25_000);
    try {
      const decoder = new TextDecoder();
      const reader = follower.stdout.getReader();
      let output = "";
      const readUntil = async (needle: string): Promise<void> => {
        while (!output.includes(needle)) {
          const { value, done } = await reader.read();
          if (done) throw new Error(`follower ended before ${JSON.stringify(needle)}`);
          output += decoder.decode(value, { stream: true });
        }
      };
      await readUntil("before the run\n");
      toolCallRun();
      const run = await env.run(["-p", "use the good tool", ...env.providerArgs()]);
      expect(run.code).toBe(0);
      await readUntil("stderr spam done\n");
      expect(output).toContain("[zot] starting spam/-");
      // The log really rotated while it was followed.
      expect(existsSync(`${logPath("spam")}.1`)).toBe(true);
      follower.kill("SIGINT");
      expect(await follower.exited).toBe(0);
    } finally {
      clearTimeout(killer);
      follower.kill("SIGKILL");
      await follower.exited;
    }
  });

  test("a missing logs directory is created 0700 with 0600 files", async () => {
    expect(existsSync(join(env.home, "logs"))).toBe(false);
    hostile("tidy", []);
    const doctor = await env.run(["ext", "doctor"]);
    expect(doctor.code).toBe(0);
    expect(statSync(join(env.home, "logs")).mode & 0o777).toBe(0o700);
    expect(statSync(logPath("tidy")).mode & 0o777).toBe(0o600);
  });
});
