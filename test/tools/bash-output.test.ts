/**
 * The bounded parts of the bash tool: the tail capture with its capped spill
 * file, the coalescing progress forwarder, and the startup sweep of old spill
 * files (bash-output.ts, bash-progress.ts, bash-spill.ts).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TailCapture } from "../../src/tools/bash-output.ts";
import { PROGRESS_BATCH_BYTES, ProgressForwarder } from "../../src/tools/bash-progress.ts";
import { SPILL_MAX_AGE_MS, sweepSpillFiles } from "../../src/tools/bash-spill.ts";
import { ensureOwnPrivateDir } from "../../src/common/private.ts";
import { cleanupTempDirs, tempDir } from "./helpers.ts";

afterAll(cleanupTempDirs);

describe("TailCapture", () => {
  test("keeps the tail in memory and the head, up to the cap, in a 0600 spill file", async () => {
    const spillDir = join(tempDir(), "tmp");
    const capture = new TailCapture({ spillDir, maxBytes: 100, maxLines: 1000, spillCap: 1000 });
    const lines = Array.from({ length: 1000 }, (_, i) => `line ${String(i).padStart(4, "0")}\n`).join("");
    const bytes = new TextEncoder().encode(lines);
    for (let at = 0; at < bytes.length; at += 333) await capture.append(bytes.subarray(at, at + 333));
    const output = await capture.finish();
    expect(output.totalBytes).toBe(bytes.length);
    expect(output.totalLines).toBe(1000);
    expect(output.bytesTruncated).toBe(true);
    // Lines are 10 bytes, so the last 100 bytes start at a line boundary.
    expect(output.text === lines.slice(lines.length - 100)).toBe(true);
    expect(output.spillCapped).toBe(true);
    expect(output.savedBytes).toBe(1000);
    const path = output.fullOutputPath as string;
    expect(readFileSync(path, "utf8") === lines.slice(0, 1000)).toBe(true);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(spillDir).mode & 0o777).toBe(0o700);
  });

  test("short output leaves no spill file", async () => {
    const spillDir = join(tempDir(), "tmp");
    const capture = new TailCapture({ spillDir });
    await capture.append(new TextEncoder().encode("hello\n"));
    const output = await capture.finish();
    expect(output).toMatchObject({ text: "hello\n", fullOutputPath: undefined, spillCapped: false, savedBytes: 0 });
    expect(existsSync(spillDir)).toBe(false);
  });

  test("a spill directory that cannot be made is reported, the tail still kept", async () => {
    const base = tempDir();
    writeFileSync(join(base, "file"), "x");
    const capture = new TailCapture({ spillDir: join(base, "file", "tmp"), maxBytes: 10 });
    await capture.append(new TextEncoder().encode("0123456789\nabcdef\n"));
    const output = await capture.finish();
    expect(output.fullOutputPath).toBeUndefined();
    expect(output.saveError).toBeString();
    expect(output.text).toBe("abcdef\n");
  });
});

describe("ProgressForwarder", () => {
  test("small output arrives complete and in order; the first chunk at once", async () => {
    const got: string[] = [];
    const forwarder = new ProgressForwarder((text) => got.push(text));
    forwarder.push(new TextEncoder().encode("one\n"));
    expect(got).toEqual(["one\n"]);
    forwarder.push(new TextEncoder().encode("two\n"));
    forwarder.push(new TextEncoder().encode("thr"));
    forwarder.push(new Uint8Array([0x65, 0x65, 0x0a, 0xc3]));
    forwarder.push(new Uint8Array([0xa9, 0x0a]));
    await Bun.sleep(120);
    forwarder.flush();
    expect(got.join("")).toBe("one\ntwo\nthree\né\n");
    expect(got.length).toBeLessThanOrEqual(3);
  });

  test("a flood is coalesced: at most one batch per interval, the excess marked as not shown", () => {
    const got: string[] = [];
    const forwarder = new ProgressForwarder((text) => got.push(text));
    const chunk = new Uint8Array(16 * 1024).fill(0x79);
    forwarder.push(chunk);
    for (let i = 0; i < 64 * 16; i++) forwarder.push(chunk); // 16 MiB more within one interval
    forwarder.flush();
    expect(got).toHaveLength(2);
    expect(got[0]?.length).toBe(16 * 1024);
    const second = got[1] as string;
    expect(second.length).toBeLessThan(PROGRESS_BATCH_BYTES + 100);
    // 16 MiB pushed after the first chunk; one batch (64 KiB) of it is shown.
    expect(second.slice(-40)).toEndWith("y\n[… 15.9 MiB not shown live …]\n");
  });
});

describe("spill sweep", () => {
  test("removes this user's old spill files and jail temp dirs, keeps new ones and other names", async () => {
    const dir = tempDir();
    const old = (Date.now() - SPILL_MAX_AGE_MS - 60_000) / 1000;
    const write = (name: string, age: "old" | "new"): string => {
      const path = join(dir, name);
      writeFileSync(path, "x");
      if (age === "old") utimesSync(path, old, old);
      return path;
    };
    const oldSpill = write("zot-bash-0123456789ab.log", "old");
    const newSpill = write("zot-bash-ba9876543210.log", "new");
    const otherName = write("zot-bash-notours.log", "old");
    const oldTmp = join(dir, "jail-tmp-AbC123");
    mkdirSync(oldTmp);
    writeFileSync(join(oldTmp, "inner"), "x");
    utimesSync(oldTmp, old, old);
    const outside = tempDir();
    const target = join(outside, "keep.txt");
    writeFileSync(target, "keep");
    utimesSync(target, old, old);
    symlinkSync(target, join(dir, "zot-bash-aaaaaaaaaaaa.log"));

    expect(await sweepSpillFiles([dir, join(dir, "missing")])).toBe(2);
    expect(existsSync(oldSpill)).toBe(false);
    expect(existsSync(oldTmp)).toBe(false);
    expect(existsSync(newSpill)).toBe(true);
    expect(existsSync(otherName)).toBe(true);
    expect(readFileSync(target, "utf8")).toBe("keep");
  });

  test("ensureOwnPrivateDir creates 0700, tightens a looser directory and refuses a symlink", () => {
    const base = tempDir();
    const made = join(base, "a", "tmp");
    ensureOwnPrivateDir(made);
    expect(statSync(made).mode & 0o777).toBe(0o700);
    const loose = join(base, "loose");
    mkdirSync(loose, { mode: 0o755 });
    ensureOwnPrivateDir(loose);
    expect(statSync(loose).mode & 0o777).toBe(0o700);
    symlinkSync(loose, join(base, "link"));
    expect(() => ensureOwnPrivateDir(join(base, "link"))).toThrow("is not a directory");
  });
});
