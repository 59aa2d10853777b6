/**
 * The prompt from stdin (`… | zot -p`, `zot --json < file`), through
 * dist/zot: a pipe or file is read whole (trimmed) up to 32 MiB; an endless
 * or larger stdin (`yes | zot -p`) stops at the limit with one line saying
 * so, exit 1, no model call (it used to be read until memory ran out); a
 * character device (/dev/zero, /dev/null) is not read at all, as the
 * original's test for a prompt on stdin, so the run stops with the no-prompt
 * usage error (exit 2) instead of reading /dev/zero for ever; a stdin that
 * cannot be read (a directory) is an error naming why.
 */
import { describe, expect, test } from "bun:test";
import { cleanEnv, zotBinary } from "../support/binary.ts";
import { useModeEnv, type ModeEnv } from "./helpers.ts";

let env: ModeEnv;
useModeEnv((created) => (env = created));

const TOO_LARGE = 'the prompt on stdin is larger than 32 MiB (the most zot reads); save it to a file and name the file in a prompt instead (zot -p "summarise big.log")';

/** dist/zot run by a shell line (`source`, where ZOT stands for zot and its arguments): stdin from its pipe or redirection. */
async function runWithShellStdin(source: string, args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const binary = await zotBinary();
  const proc = Bun.spawn(["/bin/sh", "-c", `${source.replace("ZOT", '"$0" "$@"')}`, binary, ...args], {
    cwd: env.cwd,
    env: cleanEnv(env.home),
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer = setTimeout(() => proc.kill("SIGKILL"), 25_000);
  const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  await proc.exited;
  clearTimeout(timer);
  return { code: proc.exitCode, stdout, stderr };
}

describe("the prompt on stdin", () => {
  test("40 MiB on stdin (as well as an endless `yes |`): stops at 32 MiB with one line, exit 1, no model call", async () => {
    const result = await runWithShellStdin("head -c 41943040 /dev/zero | tr '\\0' a | ZOT", ["--json", ...env.providerArgs()]);
    expect(result.stdout).toBe(`${JSON.stringify({ type: "error", message: TOO_LARGE })}\n`);
    expect(result.stderr).toBe(`zot: ${TOO_LARGE}\n`);
    expect(result.code).toBe(1);
    expect(env.server.requests.length).toBe(0);
  });

  test("a character device (/dev/zero) is not read: the no-prompt usage error, exit 2", async () => {
    const result = await runWithShellStdin("ZOT < /dev/zero", ["-p", ...env.providerArgs()]);
    expect(result.stderr).toBe("zot: print mode requires a prompt (argument or stdin)\nrun 'zot --help' for usage\n");
    expect(result.code).toBe(2);
  });

  test("a stdin that cannot be read (a directory) is named, exit 1 (was: internal error)", async () => {
    const result = await runWithShellStdin("ZOT < /", ["--json", ...env.providerArgs()]);
    const message = "cannot read the prompt from stdin (EISDIR); give it as an argument or pipe it in";
    expect(result.stdout).toBe(`${JSON.stringify({ type: "error", message })}\n`);
    expect(result.stderr).toBe(`zot: ${message}\n`);
    expect(result.code).toBe(1);
  });

  test("a pipe of 1 MiB is the prompt, trimmed", async () => {
    env.server.enqueue({ type: "text", text: "read it" });
    const body = "x".repeat(1024 * 1024);
    const result = await env.run(["-p", ...env.providerArgs()], { stdin: `\n  ${body}  \n\n` });
    expect([result.code, result.stdout, result.stderr]).toEqual([0, "read it\n", ""]);
    expect(JSON.stringify(env.server.requests[0]?.body)).toContain(`"${body}"`);
  });
});
