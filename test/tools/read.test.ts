import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createReadTool, MAX_OUTPUT_BYTES, MAX_OUTPUT_LINES } from "../../src/tools/index.ts";
import { cleanupTempDirs, makeContext, tempDir, textOf } from "./helpers.ts";

afterAll(cleanupTempDirs);

const read = createReadTool();

// A 1x1 transparent PNG.
const TINY_PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=",
  "base64",
);

const NOTE = /\n?\[(?:truncated[^:]*: )?showing lines (\d+)-(\d+) of (\d+); call read with offset=(\d+) to continue\]$/;

describe("read: text paging", () => {
  test("small files in one read, and files whose stat size lies (/proc) to their real end", async () => {
    const dir = tempDir();
    for (const content of ["", "one line, no newline", "a\nb\n", `${"y".repeat(8191)}\n`, `${"z".repeat(8192)}\n${"w".repeat(100)}\n`]) {
      writeFileSync(join(dir, "f.txt"), content);
      const outcome = await read.execute({ path: "f.txt" }, makeContext(dir));
      expect(outcome.isError).toBe(false);
      const lines = content === "" ? 0 : content.split("\n").length - (content.endsWith("\n") ? 1 : 0);
      expect(outcome.details?.total_lines).toBe(lines);
      if (content !== "") expect(textOf(outcome)).toBe(content.endsWith("\n") ? content : `${content}\n`);
    }
    // /proc files report size 0 and give at most a page per read: all of it still comes back.
    const outcome = await read.execute({ path: "/proc/self/smaps" }, makeContext(dir));
    expect(outcome.isError).toBe(false);
    expect(Buffer.byteLength(textOf(outcome))).toBeGreaterThan(4096 * 3);
  });

  test("pages through a >50 KiB, >2000-line file to the end by following the notes", async () => {
    const dir = tempDir();
    const lines = Array.from({ length: 5321 }, (_, i) => `line ${i + 1} ${"x".repeat(i % 97)}`);
    const content = `${lines.join("\n")}\n`;
    expect(Buffer.byteLength(content)).toBeGreaterThan(MAX_OUTPUT_BYTES * 3);
    writeFileSync(join(dir, "big.txt"), content);

    const ctx = makeContext(dir);
    let offset = 1;
    let collected = "";
    let calls = 0;
    for (;;) {
      const outcome = await read.execute({ path: "big.txt", offset }, ctx);
      expect(outcome.isError).toBe(false);
      const text = textOf(outcome);
      const match = NOTE.exec(text);
      const body = match ? text.slice(0, match.index + 1) : text;
      expect(Buffer.byteLength(body)).toBeLessThanOrEqual(MAX_OUTPUT_BYTES);
      expect(body.split("\n").length - 1).toBeLessThanOrEqual(MAX_OUTPUT_LINES);
      expect(outcome.details?.start_line).toBe(offset);
      expect(outcome.details?.total_lines).toBe(5321);
      collected += body;
      calls++;
      if (!match) break;
      expect(Number(match[1])).toBe(offset);
      expect(Number(match[3])).toBe(5321);
      offset = Number(match[4]);
      expect(offset).toBe(Number(match[2]) + 1);
      expect(calls).toBeLessThan(20);
    }
    expect(calls).toBeGreaterThan(3);
    expect(collected).toBe(content);
  });

  test("offset deep inside a large file returns that line (no 50 KiB pre-cap)", async () => {
    const dir = tempDir();
    const lines = Array.from({ length: 9000 }, (_, i) => `row-${i + 1}-${"y".repeat(30)}`);
    writeFileSync(join(dir, "deep.txt"), lines.join("\n"));
    const outcome = await read.execute({ path: join(dir, "deep.txt"), offset: 8999, limit: 5 }, makeContext(dir));
    expect(textOf(outcome)).toBe(`${lines[8998]}\n${lines[8999]}\n`);
    expect(outcome.details?.total_lines).toBe(9000);
  });

  test("the 2000-line cap is announced with the next offset", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "short-lines.txt"), Array.from({ length: 3000 }, (_, i) => `${i + 1}`).join("\n") + "\n");
    const outcome = await read.execute({ path: "short-lines.txt" }, makeContext(dir));
    const text = textOf(outcome);
    expect(text).toEndWith("[truncated (2000-line limit): showing lines 1-2000 of 3000; call read with offset=2001 to continue]");
    expect(text.startsWith("1\n2\n")).toBe(true);
    expect(outcome.details?.lines_truncated).toBe(true);
    expect(outcome.details?.bytes_truncated).toBe(false);
  });

  test("limit selects a window and says where to continue; the last page has no note", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "f.txt"), "a\nb\nc\nd\ne");
    const ctx = makeContext(dir);
    const middle = await read.execute({ path: "f.txt", offset: 2, limit: 2 }, ctx);
    expect(textOf(middle)).toBe("b\nc\n[showing lines 2-3 of 5; call read with offset=4 to continue]");
    expect(middle.details?.lines_truncated).toBe(false);
    const last = await read.execute({ path: "f.txt", offset: 4, limit: 10 }, ctx);
    expect(textOf(last)).toBe("d\ne\n");
  });

  test("offset past the end, empty file", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "three.txt"), "1\n2\n3\n");
    writeFileSync(join(dir, "empty.txt"), "");
    const ctx = makeContext(dir);
    const past = await read.execute({ path: "three.txt", offset: 10 }, ctx);
    expect(past.isError).toBe(false);
    expect(textOf(past)).toBe("[offset 10 is past the end of three.txt (3 lines)]");
    expect(textOf(await read.execute({ path: "empty.txt" }, ctx))).toBe("[empty file]");
  });

  test("a single line longer than the byte cap is cut and the next offset is given", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "minified.js"), `${"é".repeat(40_000)}\nsecond\n`);
    const outcome = await read.execute({ path: "minified.js" }, makeContext(dir));
    const text = textOf(outcome);
    const [body] = text.split("\n[truncated");
    expect(Buffer.byteLength(body ?? "")).toBeLessThanOrEqual(MAX_OUTPUT_BYTES);
    expect(body).not.toContain("\uFFFD");
    expect(text).toContain("line 1 is longer than 51200 bytes");
    expect(text).toContain("call read with offset=2 to continue");
  });

  test("CRLF text keeps its bytes; ~ and relative paths resolve", async () => {
    const dir = tempDir();
    mkdirSync(join(dir, "sub"));
    writeFileSync(join(dir, "sub", "crlf.txt"), "one\r\ntwo\r\n");
    expect(textOf(await read.execute({ path: "sub/crlf.txt" }, makeContext(dir)))).toBe("one\r\ntwo\r\n");
  });
});

describe("read: images, binaries, refusals", () => {
  test("an image comes back as one base64 image block", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "dot.png"), TINY_PNG);
    const outcome = await read.execute({ path: "dot.png" }, makeContext(dir));
    expect(outcome.isError).toBe(false);
    expect(outcome.content).toEqual([{ type: "image", mime_type: "image/png", data: TINY_PNG.toString("base64") }]);
  });

  test("the magic bytes decide the MIME type; a fake image is refused", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "photo.jpg"), TINY_PNG);
    writeFileSync(join(dir, "fake.gif"), "just text, not a gif\n");
    const ctx = makeContext(dir);
    const mislabeled = await read.execute({ path: "photo.jpg" }, ctx);
    expect(mislabeled.content[0]).toMatchObject({ type: "image", mime_type: "image/png" });
    const fake = await read.execute({ path: "fake.gif" }, ctx);
    expect(fake.isError).toBe(true);
    expect(textOf(fake)).toContain("not a valid PNG, JPEG, GIF or WebP");
  });

  test("binary files are refused", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "blob.bin"), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x00, 0x01, 0x02]));
    const outcome = await read.execute({ path: "blob.bin" }, makeContext(dir));
    expect(outcome.isError).toBe(true);
    expect(textOf(outcome)).toBe("blob.bin looks binary; refusing to read as text");
  });

  test("directories and missing files are errors", async () => {
    const dir = tempDir();
    mkdirSync(join(dir, "folder"));
    const ctx = makeContext(dir);
    const folder = await read.execute({ path: "folder" }, ctx);
    expect(folder.isError).toBe(true);
    expect(textOf(folder)).toBe(`${join(dir, "folder")} is a directory`);
    const missing = await read.execute({ path: "nope.txt" }, ctx);
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toBe("nope.txt: no such file or directory");
  });

  test("bad arguments name the field and never throw", async () => {
    const ctx = makeContext(tempDir());
    expect(textOf(await read.execute({}, ctx))).toBe('read: field "path": expected a string');
    expect(textOf(await read.execute({ path: 5 }, ctx))).toBe('read: field "path": expected a string');
    const badOffset = await read.execute({ path: "x", offset: -1 }, ctx);
    expect(badOffset.isError).toBe(true);
    expect(textOf(badOffset)).toStartWith('read: field "offset":');
    expect(textOf(await read.execute({ path: "x", limit: 1.5 }, ctx))).toStartWith('read: field "limit":');
  });
});

describe("read: the synchronous small-file path answers as the asynchronous one does", () => {
  // --jail (root = the dir) forces the asynchronous path; every case here is inside the root with one link.
  test("text, offsets, empty, binary, image, FIFO, directory, missing, dangling link, unreadable, 8 KiB edges", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "a.txt"), "one\ntwo\nthree\n");
    writeFileSync(join(dir, "empty.txt"), "");
    writeFileSync(join(dir, "edge.txt"), "x".repeat(8192));
    writeFileSync(join(dir, "over.txt"), "x".repeat(8193));
    writeFileSync(join(dir, "bin.dat"), Buffer.from([1, 0, 2]));
    writeFileSync(join(dir, "tiny.png"), TINY_PNG);
    writeFileSync(join(dir, "fake.png"), "not an image");
    writeFileSync(join(dir, "secret.txt"), "hidden\n", { mode: 0o000 });
    mkdirSync(join(dir, "sub"));
    symlinkSync(join(dir, "a.txt"), join(dir, "link.txt"));
    symlinkSync(join(dir, "gone.txt"), join(dir, "dangling.txt"));
    expect(Bun.spawnSync(["mkfifo", join(dir, "pipe")]).exitCode).toBe(0);
    const cases: Record<string, unknown>[] = [
      { path: "a.txt" }, { path: "a.txt", offset: 2 }, { path: "a.txt", offset: 2, limit: 1 }, { path: "a.txt", offset: 9 },
      { path: "empty.txt" }, { path: "edge.txt" }, { path: "over.txt" }, { path: "bin.dat" }, { path: "tiny.png" },
      { path: "fake.png" }, { path: "secret.txt" }, { path: "sub" }, { path: "link.txt" }, { path: "dangling.txt" },
      { path: "missing.txt" }, { path: "pipe" }, { path: join(dir, "a.txt") },
    ];
    for (const args of cases) {
      const quick = await read.execute(args, makeContext(dir));
      const slow = await read.execute(args, makeContext(dir, { jailRoot: dir }));
      expect({ args, outcome: quick }).toEqual({ args, outcome: slow });
    }
  });
});
