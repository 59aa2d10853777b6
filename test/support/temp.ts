/**
 * Temporary directories for tests. `tempDir` makes a fresh directory under
 * $TMPDIR (the run's private one, see leak-guard.ts) and records it;
 * `removeTempDirs` deletes every recorded directory. A test file that makes
 * temp dirs registers `afterAll(removeTempDirs)` at its top level (hooks in
 * shared helper modules would only bind to the first file that imports
 * them), or removes its dirs itself.
 */
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const made: string[] = [];

/** A fresh directory, by its canonical path (symlinked $TMPDIRs resolved), removed by removeTempDirs. */
export function tempDir(prefix = "zot-test-"): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  made.push(dir);
  return dir;
}

export function removeTempDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}
