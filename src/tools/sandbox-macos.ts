/**
 * The macOS sandbox of jailed `bash`: /usr/bin/sandbox-exec with a generated
 * Seatbelt profile (not tested in CI; see docs/jail.md). The command may
 *   write   the jail root, a private temp dir (created 0700 under zot's own
 *           directory for this command, removed after it, TMPDIR points at
 *           it) and the usual /dev character devices;
 *   read    everything except file contents under /Users, /Volumes,
 *           /private/var/root, /private/tmp, /private/var/folders and $HOME,
 *           where only the jail root, the private temp dir and the
 *           ZOT_JAIL_READ paths are readable (metadata stays readable so
 *           paths resolve);
 *   connect nowhere, unless ZOT_JAIL_NETWORK=1.
 * Paths are passed as -D parameters (no quoting inside the profile), in
 * canonical form (/tmp is /private/tmp there).
 */
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { ensureOwnPrivateDir } from "../common/private.ts";
import { PROTECTED_PROJECT_DIR } from "./paths.ts";
import { extraReadPaths, jailedEnv, jailNetworkAllowed, refusal, sandboxMessage, type SandboxPlan, type SandboxRequest } from "./sandbox-policy.ts";

const SANDBOX_EXEC = "/usr/bin/sandbox-exec";
const USER_DATA = ["/Users", "/Volumes", "/private/var/root", "/private/tmp", "/private/var/folders"];

async function canonical(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch {
    return path;
  }
}

/** The profile text; its paths come from the JAIL, TMP, HOME, READ_<n> and USER_<n> parameters. */
export function seatbeltProfile(readCount: number, network: boolean): string {
  const reads = Array.from({ length: readCount }, (_, i) => ` (subpath (param "READ_${i}"))`).join("");
  const userData = USER_DATA.map((_, i) => ` (subpath (param "USER_${i}"))`).join("");
  return [
    "(version 1)",
    "(deny default)",
    "(allow process-exec process-fork)",
    "(allow signal (target same-sandbox))",
    "(allow process-info* (target same-sandbox))",
    "(allow sysctl-read mach-lookup ipc-posix-shm iokit-open)",
    "(allow file-read*)",
    `(deny file-read-data${userData} (subpath (param "HOME")))`,
    `(allow file-read-data (subpath (param "JAIL")) (subpath (param "TMP"))${reads})`,
    '(allow file-write* (subpath (param "JAIL")) (subpath (param "TMP")))',
    // What zot itself starts from the project stays read-only (tools/paths.ts PROTECTED_PROJECT_DIR).
    '(deny file-write* (subpath (param "JAIL_ZOT")))',
    '(allow file-write-data (literal "/dev/null") (literal "/dev/zero") (literal "/dev/dtracehelper") (regex #"^/dev/tty"))',
    network ? "(allow network*)" : "",
  ]
    .filter((line) => line !== "")
    .join("\n");
}

export async function confineWithSandboxExec(request: SandboxRequest): Promise<SandboxPlan> {
  if (!(await Bun.file(SANDBOX_EXEC).exists())) {
    return refusal(`no OS sandbox is available (${SANDBOX_EXEC} is missing)`, "sandbox-exec ships with macOS; restore it");
  }
  ensureOwnPrivateDir(request.privateDir);
  const tmp = await realpath(await mkdtemp(join(request.privateDir, "jail-tmp-")));
  const reads = await Promise.all(extraReadPaths(request.env).map(canonical));
  const userData = await Promise.all(USER_DATA.map(canonical));
  const params = [
    "-D", `JAIL=${request.jailRoot}`,
    "-D", `JAIL_ZOT=${join(request.jailRoot, PROTECTED_PROJECT_DIR)}`,
    "-D", `TMP=${tmp}`,
    "-D", `HOME=${await canonical(homedir())}`,
    ...reads.flatMap((path, i) => ["-D", `READ_${i}=${path}`]),
    ...userData.flatMap((path, i) => ["-D", `USER_${i}=${path}`]),
  ];
  const profile = seatbeltProfile(reads.length, jailNetworkAllowed(request.env));
  return {
    ok: true,
    kind: "sandbox-exec",
    argv: [SANDBOX_EXEC, ...params, "-p", profile, ...request.argv],
    env: jailedEnv(request.env, tmp),
    cleanup: () => rm(tmp, { recursive: true, force: true }),
    // sandbox-exec refused the profile or could not apply it.
    setupFailure: (stderr) => {
      const line = sandboxMessage(stderr, "sandbox-exec");
      return line === undefined ? undefined : `bash is refused under --jail: the sandbox-exec sandbox could not be applied (${line}) (or run zot without --jail).`;
    },
  };
}
