/**
 * Signals zot's parent had it ignore, through dist/zot: `nohup zot -p …`
 * (SIGHUP ignored) and a script's `zot -p … &` (SIGINT ignored: sh does
 * that for background commands without job control) keep running through
 * that signal and deliver the answer, exit 0 — they used to stop with
 * 129 / 130, defeating nohup. SIGTERM is still handled (143). The model
 * holds its reply until the signal has been sent, so the run is in flight.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { cleanEnv, zotBinary } from "../support/binary.ts";
import { useModeEnv, type ModeEnv } from "./helpers.ts";

let env: ModeEnv;
useModeEnv((created) => (env = created));

let spawned: Bun.Subprocess[] = [];
afterEach(async () => {
  for (const proc of spawned) {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
    await proc.exited;
  }
  spawned = [];
});

/** zot -p under `trap '' <ignored>` (inherited by exec, as nohup and sh do), its reply held until the test sends `signal`. */
async function runThrough(ignored: "HUP" | "INT", signal: NodeJS.Signals): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const release = Promise.withResolvers<void>();
  env.server.enqueue({ type: "text", text: "still here", holdUntil: release.promise });
  const binary = await zotBinary();
  const proc = Bun.spawn(["/bin/sh", "-c", `trap '' ${ignored}; exec "$@"`, "sh", binary, "-p", "hi", ...env.providerArgs()], {
    cwd: env.cwd,
    env: cleanEnv(env.home),
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  spawned.push(proc);
  const until = Date.now() + 15_000;
  while (env.server.requests.length === 0 && Date.now() < until) await Bun.sleep(20);
  expect(env.server.requests.length).toBe(1);
  proc.kill(signal);
  // Time for a handler to act on it, had one been installed (the run would end at once).
  await Bun.sleep(300);
  release.resolve();
  const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  await proc.exited;
  return { code: proc.exitCode, stdout, stderr };
}

describe.if(process.platform === "linux")("a signal ignored when zot started stays ignored", () => {
  test("nohup (SIGHUP ignored): a SIGHUP does not stop the run", async () => {
    expect(await runThrough("HUP", "SIGHUP")).toEqual({ code: 0, stdout: "still here\n", stderr: "" });
  });

  test("a script's background zot (SIGINT ignored): a SIGINT does not stop the run", async () => {
    expect(await runThrough("INT", "SIGINT")).toEqual({ code: 0, stdout: "still here\n", stderr: "" });
  });

  test("SIGTERM is still handled under nohup: the run stops, exit 143", async () => {
    const result = await runThrough("HUP", "SIGTERM");
    expect([result.code, result.stdout, result.stderr]).toEqual([143, "", "zot: interrupted\n"]);
  });
});
