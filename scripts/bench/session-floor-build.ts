/**
 * Compiles the session floor program (fixtures/session-floor.ts) with the
 * same `bun build --compile` flags as dist/zot (scripts/compile.ts
 * COMPILE_FLAGS: no version define or bytecode order, which the floor has no use for),
 * and writes the config it reads from one of zot's own requests; and
 * watchRequests, a hook on the stand-in model server's requests as they
 * arrive. Shared by session.ts and memory-map.ts.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ModelServer, RecordedRequest } from "../../test/support/model-server.ts";
import { COMPILE_FLAGS } from "../compile.ts";
import { BENCH_DIR } from "./common.ts";

/** The compiled floor in `dir`; throws with Bun's output when the build fails. */
export function buildSessionFloor(dir: string): string {
  const out = join(dir, "session-floor");
  const source = join(BENCH_DIR, "fixtures", "session-floor.ts");
  const proc = Bun.spawnSync([process.execPath, "build", source, ...COMPILE_FLAGS, "--outfile", out], { cwd: dir, stdout: "pipe", stderr: "pipe" });
  if (!proc.success) throw new Error(`compiling the floor failed: ${proc.stderr.toString()}`);
  return out;
}

export interface FloorExtension {
  readonly command: readonly string[];
  readonly cwd: string;
  readonly tool: string;
}

/** Writes `<home>/floor.json` from zot's first request (same system blocks, tools, model, headers); returns its path. */
export function writeFloorConfig(first: RecordedRequest, url: string, home: string, extension?: FloorExtension): string {
  const body = first.body as { system?: unknown; tools?: unknown; max_tokens?: number; model?: string };
  const file = join(home, "floor.json");
  writeFileSync(
    file,
    JSON.stringify({
      url,
      headers: {
        "content-type": "application/json", accept: "text/event-stream",
        "x-api-key": first.headers["x-api-key"], "anthropic-version": first.headers["anthropic-version"],
      },
      model: body.model, maxTokens: body.max_tokens, system: body.system, tools: body.tools,
      prompt: "go", sessionFile: join(home, "floor-session.jsonl"), cwd: home,
      ...(extension ? { extension } : {}),
    }),
  );
  return file;
}

/**
 * Calls the watcher set with `set` with the number of requests received so
 * far, as each arrives (before it is answered); `set(undefined)` stops.
 */
export function watchRequests(server: ModelServer): (watcher: ((count: number) => void) | undefined) => void {
  let watcher: ((count: number) => void) | undefined;
  const record = server.requests.push.bind(server.requests);
  server.requests.push = (...items: RecordedRequest[]): number => {
    const count = record(...items);
    watcher?.(count);
    return count;
  };
  return (next) => {
    watcher = next;
  };
}
