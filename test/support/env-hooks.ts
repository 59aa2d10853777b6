/**
 * The hooks of a test file (or describe block) whose tests each get a fresh
 * environment (a ModeEnv, an McpEnv, …): `useFreshEnv(create, use)` makes
 * one with `create` before each test and hands it to `use`; after each test
 * it awaits `beforeDispose` (when given), then the environment's `dispose`;
 * after the file (or block) it removes every recorded temp dir
 * (removeTempDirs). Call it at the top level of the file or block.
 * `useProjectDirs(prefix, use)` is that for a bare temp dir `base` holding
 * empty `home` and `project` (the cwd) dirs, removed after each test.
 */
import { afterAll, afterEach, beforeEach } from "bun:test";
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { removeTempDirs, tempDir } from "./temp.ts";

export interface DisposableEnv {
  dispose(): Promise<void>;
}

export function useFreshEnv<Env extends DisposableEnv>(create: () => Env, use: (env: Env) => void, beforeDispose?: () => Promise<void>): void {
  let current: Env | undefined;
  afterAll(removeTempDirs);
  beforeEach(() => {
    current = create();
    use(current);
  });
  afterEach(async () => {
    await beforeDispose?.();
    await current?.dispose();
    current = undefined;
  });
}

export interface ProjectDirs {
  readonly base: string;
  readonly home: string;
  readonly cwd: string;
}

export function useProjectDirs(prefix: string, use: (dirs: ProjectDirs) => void): void {
  const create = (): ProjectDirs & DisposableEnv => {
    const base = tempDir(prefix);
    const home = join(base, "home");
    const cwd = join(base, "project");
    mkdirSync(home);
    mkdirSync(cwd);
    return { base, home, cwd, dispose: async () => rmSync(base, { recursive: true, force: true }) };
  };
  useFreshEnv(create, use);
}
