/**
 * Extension startup in the manager: nothing waits for a slow extension on
 * anyone else's behalf. Each extension joins (joinListeners; its
 * subscriptions apply) when it finished starting; registrations still apply
 * in load order, so a name conflict resolves the same way however fast each
 * one is; starting() lists who is still starting; shutdown() during startup
 * stops a silent extension at once instead of waiting out the bound.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { ExtensionConnection } from "../../src/ext/connection.ts";
import { tempDir } from "../support/binary.ts";
import { behaveExtension, hostsShutDownAfterEach, isAlive, waitFor } from "../support/extensions.ts";

const host = hostsShutDownAfterEach();
let root: string;
beforeEach(() => {
  root = tempDir("zot-startup-");
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

const options = () => ({ home: join(root, "home"), cwd: root, readyTimeoutMs: 20_000 });

describe("extension startup", () => {
  test("a fast extension joins before a slow one listed first; the conflict still goes to the first in load order", async () => {
    const slow = behaveExtension(join(root, "exts"), "slow", ["hello-delay=1.5"]);
    const fast = behaveExtension(join(root, "exts"), "fast", []);
    const { manager } = host([slow, fast], options());
    const joined: string[] = [];
    manager.joinListeners.add((connection: ExtensionConnection) => joined.push(connection.name));
    const starting = manager.start();
    expect(await waitFor(() => joined.includes("fast"), 10_000)).toBe(true);
    expect(manager.starting().map((connection) => connection.name)).toEqual(["slow"]);
    // fast's tool waits for slow (first in load order), so the conflict is decided the same way every run.
    expect(manager.registry.tools()).toEqual([]);
    await starting;
    expect(joined).toEqual(["fast", "slow"]);
    expect(manager.starting()).toEqual([]);
    expect(manager.registry.tool("py_echo")?.extension).toBe("slow");
    expect(manager.registry.shadowed.map((conflict) => `${conflict.extension}:${conflict.name}`)).toEqual(["fast:greet", "fast:py_echo"]);
  }, 30_000);

  test("shutdown during startup stops a silent extension at once and records no load error", async () => {
    const pidFile = join(root, "mute.json");
    const { manager } = host([behaveExtension(join(root, "exts"), "mute", ["never-hello", `pid-file=${pidFile}`])], options());
    const starting = manager.start();
    expect(await waitFor(() => {
      try {
        return readFileSync(pidFile, "utf8").length > 0;
      } catch {
        return false;
      }
    }, 10_000)).toBe(true);
    const begun = Date.now();
    await manager.shutdown();
    await starting;
    // Far below the 20 s bound.
    expect(Date.now() - begun).toBeLessThan(10_000);
    expect(manager.loadErrors).toEqual([]);
    const { pid } = JSON.parse(readFileSync(pidFile, "utf8")) as { pid: number };
    expect(await waitFor(() => !isAlive(pid), 5_000)).toBe(true);
  }, 30_000);
});
