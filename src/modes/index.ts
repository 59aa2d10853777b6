/**
 * Mode dispatch: picks RPC, print, JSON or interactive from the parsed flags.
 * Modes own all I/O; the agent session does the work. `--list-models` is
 * answered here for every mode (no credentials needed). Each mode is
 * imported only when chosen. Every mode runs under the process-tree guard
 * (common/process-tree.ts): zot becomes the subreaper of what it starts and
 * ends that whole tree at exit.
 */
import { ZotError } from "../common/errors.ts";
import type { MainFlags } from "../cli/flags.ts";

async function listModels(): Promise<number> {
  const [{ loadCatalog, listModelsTable }, { zotPaths }, { writeStderr, writeStdout }] = await Promise.all([
    import("../providers/index.ts"),
    import("../common/home.ts"),
    import("../cli/output.ts"),
  ]);
  const paths = zotPaths();
  const catalog = await loadCatalog(paths.modelsFile, paths.modelsCacheFile);
  for (const warning of catalog.warnings) await writeStderr(`zot: warning: ${warning}\n`);
  await writeStdout(listModelsTable(catalog));
  return 0;
}

export async function runMode(flags: MainFlags): Promise<number> {
  if (flags.listModels) return listModels();
  const { guardProcessTree } = await import("../common/process-tree.ts");
  guardProcessTree();
  if (flags.rpc) {
    const { runRpc } = await import("./rpc/server.ts");
    return runRpc(flags);
  }
  if (flags.print || flags.json) {
    const { runHeadless } = await import("./headless.ts");
    return runHeadless(flags, flags.json ? "json" : "print");
  }
  if (!process.stdin.isTTY || !process.stdout.isTTY) {
    throw new ZotError(
      "mode.no_tty",
      "interactive mode needs a terminal on stdin and stdout; use -p \"prompt\" or --json \"prompt\" for scripts",
    );
  }
  const { runInteractive } = await import("./interactive/index.ts");
  return runInteractive(flags);
}
