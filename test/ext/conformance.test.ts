// `zot ext test` through the compiled binary: good fixtures pass (Python with every feature, shell +
// jq), and each broken fixture (test/fixtures/extensions/conformance/broken.py, one fault per
// directory) fails with the check that names its fault; the key-order check (echo-panel.py: a panel
// that scrambles a burst of typed keys fails, an ordered one passes, a non-echoing one is skipped); the
// bounded frame memory (a 20000-frame flood is counted, the session keeps the last 64). Plus the
// argument generator and the reordering detector.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { findReordering, KEY_BURST } from "../../src/ext/conformance/key-order.ts";
import { sampleArguments } from "../../src/ext/conformance/samples.ts";
import { ConformanceSession, RECENT_FRAMES } from "../../src/ext/conformance/session.ts";
import type { ConformanceReportJson } from "../../src/ext/conformance/report.ts";
import { REPO_ROOT, removeTempDirs, runZot, tempDir } from "../support/binary.ts";

afterAll(removeTempDirs);

const FIXTURES = join(REPO_ROOT, "test", "fixtures", "extensions", "conformance");

async function conformance(dir: string, extra: readonly string[] = []): Promise<{ code: number | null; report: ConformanceReportJson; stdout: string }> {
  const result = await runZot(["ext", "test", dir, "--json", "--timeout", "1500", ...extra], { timeoutMs: 28_000 });
  let report: ConformanceReportJson;
  try {
    report = JSON.parse(result.stdout) as ConformanceReportJson;
  } catch {
    throw new Error(`not JSON (code ${result.code}):\n${result.stdout}\n${result.stderr}`);
  }
  return { code: result.code, report, stdout: result.stdout };
}

function failures(report: ConformanceReportJson): string[] {
  return report.checks.filter((check) => check.status === "fail").map((check) => `${check.check}: ${check.detail}`);
}

describe("zot ext test: good extensions pass", () => {
  test("python, every feature: tools, deferred, interactive + cancel, panel command, events, five intercepts", async () => {
    const { code, report } = await conformance(join(FIXTURES, "good-py"));
    expect(failures(report)).toEqual([]);
    expect(code).toBe(0);
    const passed = report.checks.filter((check) => check.status === "pass").map((check) => check.check);
    for (const check of ["hello", "ready", "tool add", "tool add_later", "command /board", "events", "intercept before_agent_start", "intercept tool_result", "cancellation", "shutdown", "eof"]) {
      expect(passed).toContain(check);
    }
    expect(report.checks.find((check) => check.check === "tool add")!.detail).toContain('{"a":2,"b":1,"mode":"sum"}');
  });

  test("POSIX shell + jq", async () => {
    const { code, report } = await conformance(join(FIXTURES, "good-sh"));
    expect(failures(report)).toEqual([]);
    expect(code).toBe(0);
  });

  test("shadowed registrations (a case-only duplicate command, a tool twice, a tool named bash) are warnings, and only what zot routes is exercised", async () => {
    const { code, report } = await conformance(join(FIXTURES, "shadowed"));
    expect(failures(report)).toEqual([]);
    expect(code).toBe(0);
    const warnings = report.checks.filter((check) => check.status === "warn" && check.check === "registration").map((check) => check.detail);
    expect(warnings).toEqual([
      'tool "rev" registered twice: the first wins, the later one is never called',
      'tool "bash" is one of zot\'s own tools, which wins: it is never called',
      'command "DATE" registered twice (names are case-insensitive): the first wins, this one is never invoked',
    ]);
    const checked = report.checks.map((check) => check.check);
    expect(checked).toContain("tool rev");
    expect(checked).toContain("command /date");
    expect(checked).not.toContain("tool bash");
    expect(checked).not.toContain("command /DATE");
  });

  test("a schema with properties named __proto__ and constructor: the generated arguments carry both", async () => {
    const dir = join(tempDir("zot-conf-proto-"), "protoish");
    mkdirSync(dir);
    writeFileSync(join(dir, "extension.json"), JSON.stringify({ name: "protoish", exec: "python3", args: ["main.py"], language: "python" }));
    writeFileSync(join(dir, "main.py"), [
      "import json, sys",
      "def emit(o): sys.stdout.write(json.dumps(o) + '\\n'); sys.stdout.flush()",
      "emit({'type': 'hello', 'name': 'protoish', 'version': '1', 'capabilities': ['tools']})",
      "for line in sys.stdin:",
      "    m = json.loads(line)",
      "    if m['type'] == 'hello_ack':",
      "        emit({'type': 'register_tool', 'name': 'keys', 'description': 'k', 'schema': {'type': 'object', 'required': ['__proto__', 'constructor'],",
      "              'properties': {'__proto__': {'type': 'string'}, 'constructor': {'type': 'string'}}}})",
      "        emit({'type': 'ready'})",
      "    elif m['type'] == 'tool_call':",
      "        args = m.get('args', {})",
      "        ok = isinstance(args.get('__proto__'), str) and isinstance(args.get('constructor'), str)",
      "        emit({'type': 'tool_result', 'id': m['id'], 'is_error': not ok, 'content': [{'type': 'text', 'text': json.dumps(args)}]})",
      "    elif m['type'] == 'shutdown':",
      "        emit({'type': 'shutdown_ack'}); break",
      "",
    ].join("\n"));
    const { report } = await conformance(dir);
    const check = report.checks.find((entry) => entry.check === "tool keys");
    expect(check?.status).toBe("pass");
  });

  test("the text report reads like doctor", async () => {
    const result = await runZot(["ext", "test", join(FIXTURES, "good-sh")]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("zot ext test — good-sh in ");
    expect(result.stdout).toContain("✓ shutdown: shutdown_ack");
    expect(result.stdout).toMatch(/ok: \d+ passed, 0 failed/);
  });
});

describe("zot ext test: each failure class is caught", () => {
  const cases: readonly (readonly [string, string, RegExp])[] = [
    ["wrong-name", "hello", /hello name "someone-else" does not match extension.json name "broken-wrong-name"/],
    ["bad-frame", "frames", /fails its schema: invalid notify frame dropped: field "message"/],
    ["silent-tool", "tool echo", /tool "echo" never answered within 1500 ms/],
    ["unknown-id", "frames", /answer to unknown id "made-up-id"/],
    ["ignores-shutdown", "shutdown", /still running 2000 ms after shutdown and sent no shutdown_ack/],
    ["ignores-eof", "eof", /still running 2000 ms after stdin closed/],
    ["silent-intercept", "intercept tool_call", /no event_intercept_response within 5000 ms/],
  ];
  for (const [fixture, check, detail] of cases) {
    test(fixture, async () => {
      const { code, report } = await conformance(join(FIXTURES, fixture));
      expect(code).toBe(1);
      expect(report.ok).toBe(false);
      const failed = report.checks.filter((c) => c.status === "fail");
      expect(failed.some((c) => c.check === check && detail.test(c.detail))).toBe(true);
    }, 30_000);
  }

  test("a missing manifest names the path; usage errors exit 2", async () => {
    const { code, report } = await conformance(join(FIXTURES, "nowhere"));
    expect(code).toBe(1);
    expect(failures(report)[0]).toContain(join(FIXTURES, "nowhere", "extension.json"));
    const usage = await runZot(["ext", "test", FIXTURES, "--timeout", "soon"]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("--timeout must be a whole number");
    const help = await runZot(["ext", "test", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("--json");
  });
});

describe("zot ext test: panel keys typed in a burst", () => {
  const keyOrder = (report: ConformanceReportJson) => report.checks.find((check) => check.check === "panel echo key order");

  test("a panel that handles keys concurrently (random delays) is flagged: its echo is scrambled", async () => {
    const { code, report } = await conformance(join(FIXTURES, "echo-scrambled"));
    expect(code).toBe(1);
    const check = keyOrder(report)!;
    expect(check.status).toBe("fail");
    expect(check.detail).toContain(`typed "${KEY_BURST}"`);
    expect(check.detail).toMatch(/the panel showed "[a-z]+": keys were handled out of order/);
  });

  test("a panel that handles keys in order passes", async () => {
    const { code, report } = await conformance(join(FIXTURES, "echo-ordered"));
    expect(failures(report)).toEqual([]);
    expect(code).toBe(0);
    expect(keyOrder(report)).toMatchObject({ status: "pass", detail: expect.stringContaining("echoed them in order") });
  });

  test("a panel that does not echo typed text is skipped with a note", async () => {
    const { report } = await conformance(join(FIXTURES, "good-py"));
    const check = report.checks.find((c) => c.check === "panel board key order")!;
    expect(check.status).toBe("skip");
    expect(check.detail).toContain("does not echo typed text");
  });

  test("the reordering detector: a contiguous permutation of the burst, not the burst itself", () => {
    expect(findReordering(`typed: ${KEY_BURST}`)).toBeUndefined();
    expect(findReordering("typed: hello world, press q to quit")).toBeUndefined();
    const shuffled = `${KEY_BURST.slice(1)}${KEY_BURST[0]}`;
    expect(findReordering(`x ${shuffled}!`)).toBe(shuffled);
    expect(findReordering(`?${KEY_BURST.slice(0, 10)}`)).toBeUndefined();
  });
});

describe("zot ext test: frames are counted, not kept", () => {
  test("a 20000-frame flood is counted in the frames summary and passes", async () => {
    const { code, report } = await conformance(join(FIXTURES, "echo-flood"));
    expect(failures(report)).toEqual([]);
    expect(code).toBe(0);
    expect(report.checks.find((check) => check.check === "frames" && check.status === "pass")!.detail).toContain("notify 20000");
  });

  test("the session keeps the last RECENT_FRAMES frames and a count per type", async () => {
    const problems: string[] = [];
    let seen = 0;
    const dir = join(FIXTURES, "echo-flood");
    const session = ConformanceSession.start(join(FIXTURES, "echo-panel.py"), ["flood"], dir, { problem: (detail) => problems.push(detail), frame: () => seen++ });
    if (typeof session === "string") throw new Error(session);
    try {
      expect(await session.waitFor(() => session.count("hello") === 1, 15_000)).toBe(true);
      session.send({ type: "hello_ack", protocol_version: 1, zot_version: "0", provider: "p", model: "m", cwd: dir, extension_dir: dir, data_dir: dir, capabilities: [] });
      expect(await session.waitFor(() => session.count("notify") === 20_000, 25_000)).toBe(true);
      expect(session.recent.length).toBe(RECENT_FRAMES);
      expect(session.recent.at(-1)).toMatchObject({ type: "notify", message: expect.stringContaining("flood 19999 ") });
      expect(seen).toBe(20_003);
      expect(problems).toEqual([]);
    } finally {
      await session.stop();
    }
  });
});

describe("tool arguments generated from a schema", () => {
  test("const, enum, default, bounds, lengths, items, nested objects and local refs", () => {
    expect(sampleArguments({
      type: "object",
      properties: {
        kind: { const: "k" },
        mode: { enum: ["fast", "slow"] },
        n: { type: "integer", minimum: 3 },
        x: { type: "number", maximum: 0.5 },
        flag: { type: ["null", "boolean"] },
        name: { type: "string", minLength: 9, maxLength: 10 },
        code: { type: "string", pattern: "^[0-9]+$" },
        tags: { type: "array", items: { type: "string" }, minItems: 2 },
        where: { $ref: "#/$defs/place" },
        limit: { type: "integer", default: 7 },
      },
      $defs: { place: { type: "object", properties: { city: { type: "string" } } } },
    })).toEqual({
      kind: "k", mode: "fast", n: 3, x: 0.5, flag: true, name: "examplexx", code: "1",
      tags: ["example", "example"], where: { city: "example" }, limit: 7,
    });
    expect(sampleArguments(undefined)).toEqual({});
    // Self-reference stays bounded.
    const looping = { type: "object", properties: { next: { $ref: "#" } } };
    expect(JSON.stringify(sampleArguments(looping)).length).toBeLessThan(1000);
  });
});
