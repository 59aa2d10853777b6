/** LogFile: the size cap and rotation, line-boundary cuts, modes, the bounded queue and the exit flush. */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { LogFile, MAX_PENDING_BYTES, rotatedLogPath } from "../../src/common/log-file.ts";
import { tempDir } from "../support/binary.ts";

let base: string;
let path: string;

beforeEach(() => {
  base = tempDir("zot-logfile-");
  path = join(base, "logs", "ext-x.log");
});

afterEach(() => rmSync(base, { recursive: true, force: true }));

function read(file: string): string {
  return existsSync(file) ? readFileSync(file, "utf8") : "";
}

describe("LogFile", () => {
  test("creates a 0700 directory and a 0600 file; tightens existing ones", async () => {
    const file = new LogFile(path);
    file.appendNote("hello\n");
    await file.flush();
    expect(read(path)).toBe("hello\n");
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(base, "logs")).mode & 0o777).toBe(0o700);

    const other = join(base, "loose", "ext-y.log");
    mkdirSync(join(base, "loose"));
    chmodSync(join(base, "loose"), 0o755);
    writeFileSync(other, "old\n");
    chmodSync(other, 0o644);
    writeFileSync(rotatedLogPath(other), "older\n");
    chmodSync(rotatedLogPath(other), 0o644);
    const loose = new LogFile(other);
    loose.appendNote("new\n");
    await loose.flush();
    expect(read(other)).toBe("old\nnew\n");
    for (const file of [other, rotatedLogPath(other)]) expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(base, "loose")).mode & 0o777).toBe(0o700);
  });

  test("never grows past the cap: rotates to .1 at a line boundary, keeping one generation", async () => {
    const file = new LogFile(path, 100);
    const lines = Array.from({ length: 30 }, (_, i) => `line ${String(i).padStart(2, "0")} ${"x".repeat(10)}\n`);
    for (const line of lines) file.appendBytes(Buffer.from(line));
    await file.flush();
    const current = read(path);
    const rotated = read(rotatedLogPath(path));
    expect(Buffer.byteLength(current)).toBeLessThanOrEqual(100);
    expect(Buffer.byteLength(rotated)).toBeLessThanOrEqual(100);
    expect(Buffer.byteLength(rotated)).toBeGreaterThan(100 - lines[0]!.length);
    // What is kept is the newest, in order, in whole lines.
    expect(`${rotated}${current}`).toBe(lines.slice(-((rotated + current).split("\n").length - 1)).join(""));
    expect(current.endsWith("line 29 xxxxxxxxxx\n")).toBe(true);
  });

  test("a line longer than a whole file is split; nothing is lost but the oldest generations", async () => {
    const file = new LogFile(path, 64);
    file.appendBytes(Buffer.from(`${"a".repeat(100)}\nend\n`));
    await file.flush();
    expect(read(rotatedLogPath(path))).toBe("a".repeat(64));
    expect(read(path)).toBe(`${"a".repeat(36)}\nend\n`);
  });

  test("two writers of one path (two processes) take turns: each follows the other's rotation; nothing is lost", async () => {
    const first = new LogFile(path, 200);
    const second = new LogFile(path, 200);
    const lines = Array.from({ length: 20 }, (_, i) => `writer ${i % 2} line ${String(i).padStart(2, "0")}\n`);
    for (const [i, line] of lines.entries()) {
      const writer = i % 2 === 0 ? first : second;
      writer.appendBytes(Buffer.from(line));
      await writer.flush();
    }
    expect(statSync(path).size).toBeLessThanOrEqual(200);
    expect(statSync(rotatedLogPath(path)).size).toBeLessThanOrEqual(200);
    expect(`${read(rotatedLogPath(path))}${read(path)}`).toBe(lines.join(""));
  });

  test("a log removed or replaced while being written is recreated at the path, not written into the void", async () => {
    const file = new LogFile(path);
    file.appendNote("first\n");
    await file.flush();
    unlinkSync(path);
    file.appendNote("after removal\n");
    await file.flush();
    expect(read(path)).toBe("after removal\n");
    renameSync(path, `${path}.moved`);
    writeFileSync(path, "someone else's file\n");
    file.appendNote("after replacement\n");
    await file.flush();
    expect(read(path)).toBe("someone else's file\nafter replacement\n");
  });

  test("notes past the queue bound are dropped and counted, then reported", async () => {
    const file = new LogFile(path, 4 * MAX_PENDING_BYTES);
    const note = `${"n".repeat(1023)}\n`;
    let accepted = 0;
    for (let i = 0; i < MAX_PENDING_BYTES / note.length + 500; i++) if (file.appendNote(note)) accepted += 1;
    expect(accepted).toBeLessThan(MAX_PENDING_BYTES / note.length + 500);
    await file.flush();
    const text = read(path);
    expect(text.split("\n").filter((line) => line.startsWith("nnn")).length).toBe(accepted);
    expect(text).toMatch(/\[zot\] \d+ log line\(s\) dropped: the log writer fell behind\n/);
  });

  test("lines queued when the process exits are written synchronously", async () => {
    const script = join(base, "exit.ts");
    const module = join(import.meta.dir, "..", "..", "src", "common", "log-file.ts");
    writeFileSync(script, [
      `import { logFileFor } from ${JSON.stringify(module)};`,
      `const file = logFileFor(${JSON.stringify(path)});`,
      "for (let i = 0; i < 1000; i++) file.appendNote(`note ${i}\\n`);",
      "process.exit(3);",
    ].join("\n"));
    const proc = Bun.spawn([process.execPath, script], { stdout: "ignore", stderr: "pipe" });
    expect(await proc.exited).toBe(3);
    const lines = read(path).split("\n").filter(Boolean);
    expect(new Set(lines).size).toBe(1000);
    expect(lines.at(-1)).toBe("note 999");
  });

  test("a process that exits right after its first note still leaves the directory and both generations private", async () => {
    const dir = join(base, "loose");
    const loose = join(dir, "ext-z.log");
    mkdirSync(dir);
    chmodSync(dir, 0o755);
    for (const file of [loose, rotatedLogPath(loose)]) {
      writeFileSync(file, "old\n");
      chmodSync(file, 0o644);
    }
    const script = join(base, "exit-at-once.ts");
    const module = join(import.meta.dir, "..", "..", "src", "common", "log-file.ts");
    writeFileSync(script, [
      `import { logFileFor } from ${JSON.stringify(module)};`,
      `logFileFor(${JSON.stringify(loose)}).appendNote("last words\\n");`,
      "process.exit(0);",
    ].join("\n"));
    const proc = Bun.spawn([process.execPath, script], { stdout: "ignore", stderr: "pipe" });
    expect(await proc.exited).toBe(0);
    expect(read(loose)).toBe("old\nlast words\n");
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    for (const file of [loose, rotatedLogPath(loose)]) expect(statSync(file).mode & 0o777).toBe(0o600);
  });
});
