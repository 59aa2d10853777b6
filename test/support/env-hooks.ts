/**
 * The hooks of a test file (or describe block) whose tests each get a fresh
 * environment (a ModeEnv, an McpEnv, …): `useFreshEnv(create, use)` makes
 * one with `create` before each test and hands it to `use`; after each test
 * it awaits `beforeDispose` (when given), then the environment's `dispose`;
 * after the file (or block) it removes every recorded temp dir
 * (removeTempDirs). Call it at the top level of the file or block.
 */
import { afterAll, afterEach, beforeEach } from "bun:test";
import { removeTempDirs } from "./temp.ts";

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
