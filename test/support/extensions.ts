/**
 * Helpers for extension-host tests: temp extension directories (manifests
 * pointing at real fixture programs), a recording ExtensionUI, a manager
 * factory with an isolated ZOT_HOME, and process-liveness checks.
 */
import { afterEach } from "bun:test";
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { zotPaths } from "../../src/common/home.ts";
import { ExtensionManager, type ExtensionManagerOptions } from "../../src/ext/manager.ts";
import type { ExtensionUI, NoteLevel } from "../../src/ext/host.ts";
import { flushAllLogs } from "../../src/common/log-file.ts";
import { tempDir } from "./binary.ts";

export const FIXTURES = join(import.meta.dir, "..", "fixtures", "extensions");
export const BEHAVE = join(FIXTURES, "behave.py");

export const QUICK = join(FIXTURES, "quick.sh");

/**
 * Test processes find `bun` (TypeScript fixtures) and the real python3 first
 * on PATH: version-manager shims (pyenv) cost ~0.5 s per start, which would
 * make start-up tests measure the shim instead of the host.
 */
function prependPath(dir: string): void {
  if (!(process.env.PATH ?? "").split(":").includes(dir)) process.env.PATH = `${dir}:${process.env.PATH ?? ""}`;
}
prependPath(dirname(process.execPath));
const realPython = Bun.spawnSync(["python3", "-c", "import sys; print(sys.executable)"], { stderr: "ignore" });
if (realPython.success) prependPath(dirname(realPython.stdout.toString().trim()));

/** Writes `<root>/<dirName>/extension.json` for a behave.py extension with the given modes. */
export function behaveExtension(root: string, name: string, modes: readonly string[] = [], dirName = name): string {
  const dir = join(root, dirName);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "extension.json"), JSON.stringify({ name, version: "1.0.0", exec: BEHAVE, args: [name, ...modes], language: "python" }));
  return dir;
}

/** Writes an extension dir running the fast shell fixture. */
export function quickExtension(root: string, name: string): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "extension.json"), JSON.stringify({ name, exec: QUICK, args: [name], language: "sh" }));
  return dir;
}

export const EXAMPLES = join(import.meta.dir, "..", "..", "examples");

/** Copies one of the shipped examples/ extensions into `root`. */
export function copyExample(root: string, example: string): string {
  const dir = join(root, example);
  cpSync(join(EXAMPLES, example), dir, { recursive: true });
  return dir;
}

/** Copies a fixture extension directory into `root`. */
export function copyFixture(root: string, fixture: string): string {
  const dir = join(root, fixture);
  cpSync(join(FIXTURES, fixture), dir, { recursive: true });
  return dir;
}

export interface RecordedNote {
  readonly extension: string;
  readonly level: NoteLevel | "clear" | "failed" | "submit" | "host-warning";
  readonly message: string;
}

export function recordingUI(): ExtensionUI & { readonly notes: RecordedNote[] } {
  const notes: RecordedNote[] = [];
  return {
    notes,
    notify: (extension, level, message) => notes.push({ extension, level, message }),
    clearNotes: (extension) => notes.push({ extension, level: "clear", message: "" }),
    submit: (extension, text) => notes.push({ extension, level: "submit", message: text }),
    panelRender: () => {},
    panelClose: () => {},
    extensionFailed: (extension, message) => notes.push({ extension, level: "failed", message }),
    hostWarning: (extension, message) => notes.push({ extension, level: "host-warning", message }),
  };
}

export interface TestHost {
  readonly manager: ExtensionManager;
  readonly ui: ReturnType<typeof recordingUI>;
  readonly home: string;
  readonly cwd: string;
}

export function createTestHost(explicit: readonly string[], options: Partial<ExtensionManagerOptions> & { home?: string; cwd?: string } = {}): TestHost {
  const home = options.home ?? tempDir("zot-home-");
  const cwd = options.cwd ?? tempDir("zot-cwd-");
  const ui = recordingUI();
  const manager = new ExtensionManager({
    paths: zotPaths(home),
    cwd,
    provider: "anthropic",
    model: "claude-sonnet-4-5",
    explicit,
    noDiscovery: false,
    ui,
    readyTimeoutMs: 3_000,
    ...options,
  });
  return { manager, ui, home, cwd };
}

/**
 * A host factory for one test file: every manager it creates is shut down
 * after each test (call at the top level of the file).
 */
export function hostsShutDownAfterEach(): (explicit: readonly string[], options?: Parameters<typeof createTestHost>[1]) => TestHost {
  const running: ExtensionManager[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((manager) => manager.shutdown()));
  });
  return (explicit, options = {}) => {
    const created = createTestHost(explicit, options);
    running.push(created.manager);
    return created;
  };
}

export { isAlive } from "./processes.ts";

export async function waitFor(predicate: () => boolean, timeoutMs = 3_000): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (predicate()) return true;
    await Bun.sleep(20);
  }
  return predicate();
}

/** A log file's text once everything this process queued for its logs is written ("" when missing). */
export async function logText(path: string): Promise<string> {
  await flushAllLogs();
  return existsSync(path) ? readFileSync(path, "utf8") : "";
}

/**
 * Waits until the log at `path` contains `needle`: an extension's stderr
 * reaches its log through a pipe, so it may arrive after the frame that
 * told the test to look.
 */
export async function waitForLog(path: string, needle: string, timeoutMs = 5_000): Promise<string> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const text = await logText(path);
    if (text.includes(needle) || Date.now() > until) return text;
    await Bun.sleep(20);
  }
}
