/**
 * The user's home and temporary directories, answered the way `node:os`
 * answers them (os.homedir: $HOME when set and non-empty, else the passwd
 * entry; os.tmpdir: $TMPDIR, $TMP, $TEMP, else /tmp, without a trailing
 * slash) but without loading `node:os` where the environment answers: a
 * print run asks for both, and the module costs ≈0.25 ms and ≈0.5 MiB of
 * the binary's code pages (docs/benchmarks.md, "Sixth pass"). Windows and
 * an unset $HOME go to `node:os` itself, loaded on first use.
 */

function nodeOs(): typeof import("node:os") {
  return require("node:os") as typeof import("node:os");
}

export function homeDirectory(env: Readonly<Record<string, string | undefined>> = process.env): string {
  if (process.platform !== "win32" && env.HOME) return env.HOME;
  return nodeOs().homedir();
}

export function tempDirectory(env: Readonly<Record<string, string | undefined>> = process.env): string {
  if (process.platform === "win32") return nodeOs().tmpdir();
  const dir = env.TMPDIR || env.TMP || env.TEMP || "/tmp";
  return dir.length > 1 && dir.endsWith("/") ? dir.slice(0, -1) : dir;
}
