/**
 * The Linux sandbox of jailed `bash`: bubblewrap. The command runs in new
 * user, mount, pid, ipc, uts, cgroup and (unless ZOT_JAIL_NETWORK=1) network
 * namespaces, with every capability dropped, killed when bwrap dies
 * (--die-with-parent; the pid namespace ends with its first process, so
 * background jobs end with the command). Its file system:
 *   read-only  /usr /bin /sbin /lib* /opt /nix (those that exist; top-level
 *              symlinks such as /bin -> usr/bin recreated as symlinks), /etc
 *              minus every file not readable by others and every directory
 *              not searchable by others (shadow, ssl/private, …: hidden),
 *              the ZOT_JAIL_READ paths, and with network /run/systemd/resolve
 *   fresh      /dev (null, zero, random, tty, pts, shm …), /proc of the new
 *              pid namespace, /tmp: an empty tmpfs per command (512 MiB cap
 *              with bwrap ≥ 0.7), TMPDIR=/tmp
 *   read-write the jail root, at its own path
 * and nothing else (no home directory, /var, /run, /sys, /mnt, /media…);
 * the root itself is read-only. bwrap is looked up on PATH, skipping any
 * candidate inside the jail root (the model can write there).
 */
import { constants } from "node:fs";
import { access, lstat, readdir, readlink, realpath } from "node:fs/promises";
import { isAbsolute, join } from "node:path";
import { isWithin, PROTECTED_PROJECT_DIR } from "./paths.ts";
import { extraReadPaths, jailedEnv, jailNetworkAllowed, refusal, sandboxMessage, type SandboxPlan, type SandboxRequest } from "./sandbox-policy.ts";

const SYSTEM_READ_PATHS = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt", "/nix"];
const TMP_SIZE_BYTES = 512 * 1024 * 1024;
/** Bound on the /etc walk (entries visited), so a huge /etc cannot stall the first command. */
const MAX_ETC_ENTRIES = 20_000;

const INSTALL_HINT =
  "Install bubblewrap (Debian/Ubuntu: `apt-get install bubblewrap`, Fedora: `dnf install bubblewrap`, Arch: `pacman -S bubblewrap`)";

/** The first executable `bwrap` on PATH that is not inside the jail. */
async function findBwrap(pathEnv: string | undefined, jailRoot: string): Promise<string | undefined> {
  for (const dir of (pathEnv ?? "").split(":")) {
    if (!isAbsolute(dir)) continue;
    const candidate = join(dir, "bwrap");
    try {
      await access(candidate, constants.X_OK);
      const real = await realpath(candidate);
      if (isWithin(jailRoot, real)) continue;
      if ((await lstat(real)).isFile()) return real;
    } catch {
      // Not here.
    }
  }
  return undefined;
}

const versions = new Map<string, Promise<[number, number, number] | undefined>>();

/** `bwrap --version` as numbers, once per binary. */
function bwrapVersion(bwrap: string): Promise<[number, number, number] | undefined> {
  let known = versions.get(bwrap);
  if (known === undefined) {
    known = (async () => {
      try {
        const proc = Bun.spawn([bwrap, "--version"], { stdin: "ignore", stdout: "pipe", stderr: "ignore" });
        const text = await new Response(proc.stdout).text();
        await proc.exited;
        const match = /(\d+)\.(\d+)(?:\.(\d+))?/.exec(text);
        return match ? [Number(match[1]), Number(match[2]), Number(match[3] ?? 0)] : undefined;
      } catch {
        return undefined;
      }
    })();
    versions.set(bwrap, known);
  }
  return known;
}

interface Mask {
  readonly path: string;
  readonly directory: boolean;
}

let etcMasks: Promise<Mask[]> | undefined;

/** Files under /etc that others may not read and directories others may not search (walked once per process). */
export function hiddenEtcEntries(root = "/etc"): Promise<Mask[]> {
  if (root !== "/etc") return walkForMasks(root);
  etcMasks ??= walkForMasks(root);
  return etcMasks;
}

async function walkForMasks(root: string): Promise<Mask[]> {
  const masks: Mask[] = [];
  const queue = [root];
  let visited = 0;
  while (queue.length > 0 && visited < MAX_ETC_ENTRIES) {
    const dir = queue.shift() as string;
    for (const name of await readdir(dir).catch(() => [])) {
      if (++visited > MAX_ETC_ENTRIES) break;
      const path = join(dir, name);
      try {
        const stats = await lstat(path);
        if (stats.isDirectory()) {
          if ((stats.mode & 0o001) === 0) masks.push({ path, directory: true });
          else queue.push(path);
        } else if (stats.isFile() && (stats.mode & 0o004) === 0) {
          masks.push({ path, directory: false });
        }
      } catch {
        // Vanished while walking.
      }
    }
  }
  return masks;
}

async function systemMounts(paths: readonly string[]): Promise<string[]> {
  const args: string[] = [];
  for (const path of paths) {
    try {
      const stats = await lstat(path);
      if (stats.isSymbolicLink()) args.push("--symlink", await readlink(path), path);
      else if (stats.isDirectory()) args.push("--ro-bind", path, path);
    } catch {
      // Absent on this system.
    }
  }
  return args;
}

/** A directory that is not a symlink (a link in the project is not bound: bwrap would follow it out). */
async function isRealDirectory(path: string): Promise<boolean> {
  try {
    return (await lstat(path)).isDirectory();
  } catch {
    return false;
  }
}

/** bwrap arguments (everything before `--`) for one jailed command. */
async function bwrapArguments(request: SandboxRequest, version: readonly number[] | undefined): Promise<string[]> {
  const network = jailNetworkAllowed(request.env);
  const args = ["--die-with-parent", "--unshare-all", ...(network ? ["--share-net"] : []), "--cap-drop", "ALL"];
  args.push(...(await systemMounts(SYSTEM_READ_PATHS)));
  args.push("--ro-bind", "/etc", "/etc");
  for (const mask of await hiddenEtcEntries()) {
    if (mask.directory) args.push("--tmpfs", mask.path);
    else args.push("--ro-bind", "/dev/null", mask.path);
  }
  if (network) args.push("--ro-bind-try", "/run/systemd/resolve", "/run/systemd/resolve");
  args.push("--dev", "/dev", "--proc", "/proc");
  const [major = 0, minor = 0] = version ?? [];
  if (major > 0 || minor >= 7) args.push("--size", String(TMP_SIZE_BYTES));
  args.push("--tmpfs", "/tmp");
  for (const path of extraReadPaths(request.env)) args.push("--ro-bind-try", path, path);
  args.push("--bind", request.jailRoot, request.jailRoot);
  // What zot itself starts from the project (.zot: extensions, MCP servers, skills) stays read-only (tools/paths.ts).
  const protectedDir = join(request.jailRoot, PROTECTED_PROJECT_DIR);
  if (await isRealDirectory(protectedDir)) args.push("--ro-bind", protectedDir, protectedDir);
  if (request.jailRoot !== "/") args.push("--remount-ro", "/");
  args.push("--chdir", request.cwd);
  return args;
}

export async function confineWithBwrap(request: SandboxRequest): Promise<SandboxPlan> {
  const bwrap = await findBwrap(request.env.PATH, request.jailRoot);
  if (bwrap === undefined) return refusal("no OS sandbox is available (bubblewrap `bwrap` is not on PATH)", INSTALL_HINT);
  const args = await bwrapArguments(request, await bwrapVersion(bwrap));
  return {
    ok: true,
    kind: "bwrap",
    argv: [bwrap, ...args, "--", ...request.argv],
    env: jailedEnv(request.env, "/tmp"),
    cleanup: async () => undefined,
    setupFailure: (stderr) => {
      const line = sandboxMessage(stderr, "bwrap");
      return line === undefined ? undefined : bwrapFailureMessage(line);
    },
  };
}

/** The refusal for a bwrap that could not build the sandbox, from its own message (e.g. no user namespaces). */
function bwrapFailureMessage(line: string): string {
  return (
    `bash is refused under --jail: the bubblewrap sandbox could not be created (${line}). ` +
    "bwrap needs unprivileged user namespaces (check `sysctl kernel.unprivileged_userns_clone` and, on Ubuntu 24.04+, " +
    "`kernel.apparmor_restrict_unprivileged_userns` or an AppArmor profile for bwrap); in a container, allow them " +
    "(e.g. Docker `--security-opt seccomp=unconfined`) (or run zot without --jail)."
  );
}
