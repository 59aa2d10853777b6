import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, unlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PassThrough, Readable } from "node:stream";
import {
  latestSession,
  listSessions,
  loadSession,
  pickSession,
  pruneEmptySessions,
  sessionDirForCwd,
  type SessionSummary,
} from "../../src/session/index.ts";
import { newWriter, tempHome, userText, type TempHome } from "./helpers.ts";
import { removeTempDirs } from "../support/temp.ts";

afterAll(removeTempDirs);

const MINUTE = 60_000;

function setMtime(path: string, msAgo: number): void {
  const at = new Date(Date.now() - msAgo);
  utimesSync(path, at, at);
}

function sessionWith(home: TempHome, texts: string[], msAgo: number, title?: string): string {
  const writer = newWriter(home, title === undefined ? {} : { title });
  for (const text of texts) writer.appendMessage(userText(text));
  writer.close();
  setMtime(writer.path, msAgo);
  return writer.path;
}

describe("listing", () => {
  test("newest modified first, with counts, first user text and title", async () => {
    const home = tempHome();
    const old = sessionWith(home, ["oldest question"], 30 * MINUTE);
    const newest = sessionWith(home, ["newest question", "follow-up"], 1 * MINUTE, "Named");
    const middle = sessionWith(home, ["middle question"], 10 * MINUTE);
    const dir = sessionDirForCwd(home.cwd, home.sessionsRoot);
    writeFileSync(join(dir, "notes.txt"), "not a session");
    writeFileSync(join(dir, "broken.jsonl"), "not json\n");

    const sessions = await listSessions(dir);
    expect(sessions.map((s) => s.path)).toEqual([newest, middle, old]);
    expect(sessions[0]).toMatchObject({ messageCount: 2, firstUserText: "newest question", title: "Named" });
    expect(sessions[0]?.id).toBe(loadSession(newest).meta.id);
    expect(sessions[2]?.title).toBeUndefined();
  });

  test("equal mtimes fall back to file name, descending", async () => {
    const home = tempHome();
    const a = sessionWith(home, ["a"], 5 * MINUTE);
    const b = sessionWith(home, ["b"], 5 * MINUTE);
    const at = new Date(Date.now() - 5 * MINUTE);
    utimesSync(a, at, at);
    utimesSync(b, at, at);
    const sessions = await listSessions(sessionDirForCwd(home.cwd, home.sessionsRoot));
    expect(sessions.map((s) => s.path)).toEqual([a, b].sort().reverse());
  });

  test("latestSession skips message-less files and other cwds; missing dir lists nothing", async () => {
    const home = tempHome();
    expect(await listSessions(join(home.home, "absent"))).toEqual([]);
    expect(await latestSession(home.cwd, home.sessionsRoot)).toBeUndefined();
    const withMessages = sessionWith(home, ["real work"], 5 * MINUTE);
    const live = newWriter(home); // another instance's fresh, empty file
    const elsewhere = newWriter({ ...home, cwd: join(home.home, "elsewhere") });
    elsewhere.appendMessage(userText("other project"));
    const latest = await latestSession(home.cwd, home.sessionsRoot);
    expect(latest?.path).toBe(withMessages);
    live.close();
    elsewhere.close();
  });
});

describe("pickSession", () => {
  const sessions: SessionSummary[] = ["first", "second", "third"].map((text, i) => ({
    path: `/s/${i}.jsonl`,
    id: `id-${i}`,
    started: "",
    provider: "anthropic",
    model: "claude-sonnet-4-5",
    mtime: new Date(2025, 0, 1),
    messageCount: i + 1,
    firstUserText: text,
    cumulativeUsage: { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, cost_usd: 0 },
  }));

  async function pick(input: string): Promise<{ picked: SessionSummary | undefined; shown: string }> {
    let shown = "";
    const picked = await pickSession(sessions, { input: Readable.from([input]), output: { write: (text: string) => (shown += text) } });
    return { picked, shown };
  }

  test("prints a numbered list and returns the chosen session", async () => {
    const { picked, shown } = await pick("2\n");
    expect(picked?.id).toBe("id-1");
    expect(shown).toContain("  1) ");
    expect(shown).toContain("second");
    expect(shown).toContain("3 msgs");
  });

  test("re-prompts on a bad answer, cancels on empty line or end of input", async () => {
    const retried = await pick("7\nabc\n3\n");
    expect(retried.picked?.id).toBe("id-2");
    expect(retried.shown).toContain("not a choice: 7");
    expect((await pick("\n1\n")).picked).toBeUndefined();
    expect((await pick("")).picked).toBeUndefined();
  });

  test("waits for the answer on a live stream", async () => {
    const input = new PassThrough();
    const result = pickSession(sessions, { input, output: { write: () => true } });
    await Bun.sleep(20);
    input.write("1\n");
    expect((await result)?.id).toBe("id-0");
  });
});

describe("pruning empty sessions", () => {
  test("removes only stale meta-only files; fresh, non-empty, foreign, kept and locked files survive", async () => {
    const home = tempHome();
    const dir = sessionDirForCwd(home.cwd, home.sessionsRoot);

    const freshEmpty = newWriter(home); // a concurrently running zot, just started
    const ownEmpty = newWriter(home);
    const lockedEmpty = newWriter(home); // a live zot whose file has been quiet for long
    const staleWithMessage = sessionWith(home, ["keep me"], 60 * MINUTE);
    // An abandoned file: its zot died before the first message (nobody holds its lock).
    const staleEmpty = join(dir, "20240101-000000-deadbeef.jsonl");
    writeFileSync(staleEmpty, `${JSON.stringify({ type: "meta", meta: { id: "deadbeef-1", cwd: home.cwd, model: "m", provider: "p", started: "", version: "1" } })}\n`);
    const orphanIndex = join(dir, ".gone.jsonl.idx");
    writeFileSync(orphanIndex, "{}\n");
    for (const path of [staleEmpty, ownEmpty.path, lockedEmpty.path, orphanIndex]) setMtime(path, 60 * MINUTE);
    mkdirSync(dir, { recursive: true });
    const foreign = join(dir, "foreign.jsonl");
    writeFileSync(foreign, "hello\n");
    setMtime(foreign, 60 * MINUTE);

    const removed = await pruneEmptySessions(dir, { keep: [ownEmpty.path] });
    expect(removed).toEqual([staleEmpty]);
    expect(existsSync(staleEmpty)).toBe(false);
    expect(existsSync(orphanIndex)).toBe(false);
    for (const path of [freshEmpty.path, ownEmpty.path, lockedEmpty.path, staleWithMessage, foreign]) expect(existsSync(path)).toBe(true);

    for (const writer of [freshEmpty, ownEmpty, lockedEmpty]) writer.close();
  });

  test("a writer whose empty file was pruned recreates it on the next append", () => {
    const home = tempHome();
    const writer = newWriter(home);
    unlinkSync(writer.path); // what a prune by another zot would do
    writer.appendMessage(userText("still here"));
    writer.close();
    const loaded = loadSession(writer.path);
    expect(loaded.meta.id).toBe(writer.id);
    expect(loaded.messages).toHaveLength(1);
  });
});
