/**
 * Suite-wide leak guard, loaded before every test file (bunfig.toml
 * `preload`). The run gets a private TMPDIR (inherited by every zot, git and
 * extension the tests start) and, on Linux, the test process becomes child
 * subreaper, so processes orphaned by a test are re-parented to it instead of
 * vanishing into init. After the last test, anything left in that TMPDIR and
 * any live descendant process fails the run, listed by name; then both are
 * removed, so even a failing run leaves nothing behind.
 */
import { afterAll } from "bun:test";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { becomeChildSubreaper } from "../../src/common/libc.ts";
import { type LiveProcess, liveChildren } from "./processes.ts";

const outerTmp = tmpdir();
const runTmp = mkdtempSync(join(outerTmp, "zot-test-run-"));
process.env.TMPDIR = runTmp;
const subreaper = process.platform === "linux" && becomeChildSubreaper().ok;

/** Descendants may still be on their way out when the last test ends: give them a moment. */
async function settledChildren(): Promise<LiveProcess[]> {
  let live = liveChildren();
  for (let waited = 0; live.length > 0 && waited < 2_000; waited += 100) {
    await Bun.sleep(100);
    live = liveChildren();
  }
  return live;
}

afterAll(async () => {
  const problems: string[] = [];
  if (subreaper) {
    for (const child of await settledChildren()) {
      problems.push(`process ${child.pid} still running: ${child.command}`);
      try {
        process.kill(child.pid, "SIGKILL");
      } catch {
        // gone already
      }
    }
  }
  let left: string[] = [];
  try {
    left = readdirSync(runTmp);
  } catch {
    left = [];
  }
  for (const name of left) problems.push(`left in TMPDIR: ${name}`);
  process.env.TMPDIR = outerTmp;
  rmSync(runTmp, { recursive: true, force: true });
  if (problems.length > 0) {
    const shown = problems.slice(0, 40);
    const more = problems.length > shown.length ? `\n  … and ${problems.length - shown.length} more` : "";
    throw new Error(`the test run left things behind (every test must remove what it creates):\n  ${shown.join("\n  ")}${more}`);
  }
});
