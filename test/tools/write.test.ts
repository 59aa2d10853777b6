import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, lstatSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createWriteTool } from "../../src/tools/index.ts";
import { cleanupTempDirs, makeContext, tempDir, textOf } from "./helpers.ts";

afterAll(cleanupTempDirs);

const write = createWriteTool();

describe("write", () => {
  test("creates parent directories and reports a concise result", async () => {
    const dir = tempDir();
    const outcome = await write.execute({ path: "a/b/c/new.ts", content: "one\ntwo\nthree\nfour\n" }, makeContext(dir));
    expect(outcome.isError).toBe(false);
    expect(textOf(outcome)).toBe("wrote 19 bytes (4 lines) to a/b/c/new.ts");
    expect(readFileSync(join(dir, "a/b/c/new.ts"), "utf8")).toBe("one\ntwo\nthree\nfour\n");
    expect(outcome.details).toMatchObject({ path: join(dir, "a/b/c/new.ts"), bytes: 19, total_lines: 4, start_line: 1 });
  });

  test("overwrites atomically: no temp files are left behind and the mode is kept", async () => {
    const dir = tempDir();
    const target = join(dir, "script.sh");
    writeFileSync(target, "#!/bin/sh\necho old\n");
    chmodSync(target, 0o755);
    const ctx = makeContext(dir);
    for (let i = 0; i < 5; i++) {
      const outcome = await write.execute({ path: target, content: `#!/bin/sh\necho ${i}\n` }, ctx);
      expect(outcome.isError).toBe(false);
    }
    expect(readFileSync(target, "utf8")).toBe("#!/bin/sh\necho 4\n");
    expect(readdirSync(dir)).toEqual(["script.sh"]);
    expect(statSync(target).mode & 0o777).toBe(0o755);
  });

  test("writing through a symlink updates the target and keeps the link", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "real.txt"), "old");
    symlinkSync("real.txt", join(dir, "link.txt"));
    await write.execute({ path: "link.txt", content: "new" }, makeContext(dir));
    expect(lstatSync(join(dir, "link.txt")).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(dir, "real.txt"), "utf8")).toBe("new");
  });

  test("refuses a directory and bad arguments", async () => {
    const dir = tempDir();
    const ctx = makeContext(dir);
    const onDir = await write.execute({ path: ".", content: "x" }, ctx);
    expect(onDir.isError).toBe(true);
    expect(textOf(onDir)).toBe(". is a directory");
    const noContent = await write.execute({ path: "x.txt" }, ctx);
    expect(textOf(noContent)).toBe('write: field "content": expected a string');
    expect(readdirSync(dir)).toEqual([]);
  });

  test("an empty file is zero lines", async () => {
    const dir = tempDir();
    expect(textOf(await write.execute({ path: "empty", content: "" }, makeContext(dir)))).toBe("wrote 0 bytes (0 lines) to empty");
  });
});
