/** Log path resolution, printing, and following (append, truncation, rotation, abort). */
import { afterAll, afterEach, beforeEach, describe, expect, test } from "bun:test";
import { appendFileSync, closeSync, mkdirSync, openSync, renameSync, rmSync, truncateSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { ZotError } from "../../src/common/errors.ts";
import { type ZotPaths, zotPaths } from "../../src/common/home.ts";
import { followLog, printLog, resolveLogTarget } from "../../src/ext/logs.ts";
import { tempDir } from "../support/binary.ts";
import { writeExtension } from "../fixtures/ext-install/make.ts";
import { removeTempDirs } from "../support/temp.ts";

afterAll(removeTempDirs);

let base: string;
let cwd: string;
let paths: ZotPaths;

beforeEach(() => {
  base = tempDir("zot-logs-");
  cwd = join(base, "cwd");
  mkdirSync(cwd);
  paths = zotPaths(join(base, "home"));
  mkdirSync(paths.logs, { recursive: true });
});

afterEach(() => rmSync(base, { recursive: true, force: true }));

/** A writer collecting text, with a way to wait until some text has arrived. */
function collector(): { write: (chunk: Uint8Array) => Promise<void>; text: () => string; waitFor: (needle: string) => Promise<void> } {
  const decoder = new TextDecoder();
  let output = "";
  return {
    write: async (chunk) => {
      output += decoder.decode(chunk, { stream: true });
    },
    text: () => output,
    waitFor: async (needle) => {
      const deadline = Date.now() + 5000;
      while (!output.includes(needle)) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${JSON.stringify(needle)}; got ${JSON.stringify(output)}`);
        await Bun.sleep(10);
      }
    },
  };
}

describe("resolveLogTarget", () => {
  test("a directory name resolves to the manifest name's log", async () => {
    writeExtension(join(paths.extensions, "zot-todo"), { name: "todo", exec: "./x" });
    expect(await resolveLogTarget("zot-todo", { cwd, paths })).toEqual({ name: "todo", path: join(paths.logs, "ext-todo.log") });
  });

  test("an extension that is not installed uses the raw name", async () => {
    expect((await resolveLogTarget("adhoc", { cwd, paths })).path).toBe(join(paths.logs, "ext-adhoc.log"));
  });

  test("path-like names are refused", async () => {
    await expect(resolveLogTarget("../../etc/passwd", { cwd, paths })).rejects.toThrow("is not an extension name");
  });
});

describe("printLog", () => {
  test("prints the whole file, in chunks when large", async () => {
    const big = "line of log text\n".repeat(10_000);
    writeFileSync(join(paths.logs, "ext-big.log"), big);
    const out = collector();
    await printLog(await resolveLogTarget("big", { cwd, paths }), out.write);
    expect(out.text()).toBe(big);
  });

  test("the rotated generation is printed before the current file", async () => {
    writeFileSync(join(paths.logs, "ext-gen.log.1"), "older\n");
    writeFileSync(join(paths.logs, "ext-gen.log"), "newer\n");
    const out = collector();
    await printLog(await resolveLogTarget("gen", { cwd, paths }), out.write);
    expect(out.text()).toBe("older\nnewer\n");
  });

  test("a missing log names the path", async () => {
    const target = await resolveLogTarget("quiet", { cwd, paths });
    let error: unknown;
    try {
      await printLog(target, collector().write);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ZotError);
    expect((error as ZotError).message).toBe(`no log for "quiet" at ${join(paths.logs, "ext-quiet.log")}`);
  });
});

describe("followLog", () => {
  test("prints existing content, then appends, truncations and rotations until aborted", async () => {
    const path = join(paths.logs, "ext-live.log");
    writeFileSync(path, "first\n");
    const out = collector();
    const controller = new AbortController();
    const following = followLog({ name: "live", path }, out.write, controller.signal, 20);

    await out.waitFor("first\n");
    appendFileSync(path, "second\n");
    await out.waitFor("second\n");

    truncateSync(path, 0);
    await Bun.sleep(60);
    appendFileSync(path, "after truncate\n");
    await out.waitFor("after truncate\n");

    renameSync(path, `${path}.1`);
    await Bun.sleep(60);
    writeFileSync(path, "rotated\n");
    await out.waitFor("rotated\n");

    controller.abort();
    await following;
    expect(out.text()).toBe("first\nsecond\nafter truncate\nrotated\n");
  });

  test("lines a writer appended to the old file just before rotating are not lost", async () => {
    const path = join(paths.logs, "ext-rot.log");
    writeFileSync(path, "one\n");
    const out = collector();
    const controller = new AbortController();
    // A long poll: the late append, the rotation and the new file all happen between two polls.
    const following = followLog({ name: "rot", path }, out.write, controller.signal, 300);
    await out.waitFor("one\n");
    const oldFile = openSync(path, "a");
    writeSync(oldFile, "two (late, in the old file)\n");
    renameSync(path, `${path}.1`);
    writeSync(oldFile, "three (after the rename, still the old file)\n");
    closeSync(oldFile);
    writeFileSync(path, "four (new file)\n");
    await out.waitFor("four (new file)\n");
    controller.abort();
    await following;
    expect(out.text()).toBe("one\ntwo (late, in the old file)\nthree (after the rename, still the old file)\nfour (new file)\n");
  });

  test("a missing log fails before following", async () => {
    const controller = new AbortController();
    await expect(followLog({ name: "none", path: join(paths.logs, "ext-none.log") }, collector().write, controller.signal, 20))
      .rejects.toThrow('no log for "none"');
  });
});
