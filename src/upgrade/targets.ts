/**
 * The release targets: one table shared by scripts/release.ts (what is
 * built) and `zot upgrade` (which file this machine needs). A file is
 * named zot-<os>-<arch>[-musl][.exe]; os is linux | darwin | windows, arch
 * x64 | arm64, libc glibc | musl on Linux and null elsewhere.
 */
export type ReleaseOs = "linux" | "darwin" | "windows";
export type ReleaseArch = "x64" | "arm64";
export type ReleaseLibc = "glibc" | "musl" | null;

export interface ReleaseTarget {
  /** What `--targets` names: "linux-x64-musl". */
  readonly id: string;
  readonly os: ReleaseOs;
  readonly arch: ReleaseArch;
  readonly libc: ReleaseLibc;
  /** bun build --compile --target=… */
  readonly bunTarget: string;
  /** The released file name: "zot-linux-x64-musl", "zot-windows-x64.exe". */
  readonly file: string;
}

function target(os: ReleaseOs, arch: ReleaseArch, libc: ReleaseLibc): ReleaseTarget {
  const id = `${os}-${arch}${libc === "musl" ? "-musl" : ""}`;
  return { id, os, arch, libc, bunTarget: `bun-${id}`, file: `zot-${id}${os === "windows" ? ".exe" : ""}` };
}

export const RELEASE_TARGETS: readonly ReleaseTarget[] = [
  target("linux", "x64", "glibc"),
  target("linux", "arm64", "glibc"),
  target("linux", "x64", "musl"),
  target("darwin", "x64", null),
  target("darwin", "arm64", null),
  target("windows", "x64", null),
];

export function findTarget(id: string): ReleaseTarget | undefined {
  return RELEASE_TARGETS.find((candidate) => candidate.id === id);
}

/** The target of a machine; undefined when no release is built for it. */
export function targetFor(platform: NodeJS.Platform, arch: string, musl: boolean): ReleaseTarget | undefined {
  const os: ReleaseOs | undefined = platform === "linux" ? "linux" : platform === "darwin" ? "darwin" : platform === "win32" ? "windows" : undefined;
  if (os === undefined || (arch !== "x64" && arch !== "arm64")) return undefined;
  const libc: ReleaseLibc = os === "linux" ? (musl ? "musl" : "glibc") : null;
  return RELEASE_TARGETS.find((candidate) => candidate.os === os && candidate.arch === arch && candidate.libc === libc);
}
