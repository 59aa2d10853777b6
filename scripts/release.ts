/**
 * `bun run release [--outdir DIR] [--targets a,b]`: cross-compiles zot for
 * every release target (src/upgrade/targets.ts; default all six) into DIR
 * (default dist/release/) as zot-<os>-<arch>[-musl][.exe], then writes
 * SHA256SUMS (`<hex>  <file>`, sha256sum's format) and release.json
 * (version, commit, date, files: name, os, arch, libc, size, sha256), copies
 * install.sh beside them (listed in SHA256SUMS, not in release.json's
 * files, which are the binaries) and prints a size table. Each binary is compiled to a temp name in DIR and
 * only renamed into place once every target built: a failure (a target
 * runtime that cannot be downloaded, a compile error) names the target,
 * removes every partial output and exits 1, leaving DIR as it was.
 * Exit 2: bad arguments.
 */
import { existsSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { buildStamp, compileZot, REPO_ROOT, type BuildStamp } from "./compile.ts";
import { findTarget, RELEASE_TARGETS, type ReleaseTarget } from "../src/upgrade/targets.ts";

export interface ReleaseFile {
  readonly name: string;
  readonly os: string;
  readonly arch: string;
  readonly libc: string | null;
  readonly size: number;
  readonly sha256: string;
}

interface Options {
  readonly outdir: string;
  readonly targets: readonly ReleaseTarget[];
}

function usage(message: string): never {
  console.error(`release: ${message}\nusage: bun run release [--outdir DIR] [--targets ${RELEASE_TARGETS.map((t) => t.id).join(",")}]`);
  process.exit(2);
}

function parseArgs(argv: readonly string[]): Options {
  let outdir = join(REPO_ROOT, "dist", "release");
  let targets: readonly ReleaseTarget[] = RELEASE_TARGETS;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const [name, inline] = arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined];
    const value = (): string => {
      const next = inline ?? argv[++i];
      if (next === undefined || next === "") usage(`${name} needs a value`);
      return next;
    };
    if (name === "--outdir") outdir = resolve(value());
    else if (name === "--targets") {
      targets = value().split(",").filter((id) => id !== "").map((id) => findTarget(id) ?? usage(`unknown target "${id}"`));
      if (targets.length === 0) usage("--targets names no target");
    } else if (name === "--help" || name === "-h") {
      console.log(`usage: bun run release [--outdir DIR] [--targets ${RELEASE_TARGETS.map((t) => t.id).join(",")}]`);
      process.exit(0);
    } else usage(`unknown argument "${arg}"`);
  }
  return { outdir, targets };
}

function sha256Of(path: string): string {
  const hasher = new Bun.CryptoHasher("sha256");
  hasher.update(readFileSync(path));
  return hasher.digest("hex");
}

function formatSize(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

function sizeTable(files: readonly ReleaseFile[]): string {
  const width = Math.max(...files.map((file) => file.name.length), 4);
  const rows = files.map((file) => `${file.name.padEnd(width)}  ${formatSize(file.size).padStart(10)}`);
  return [`${"file".padEnd(width)}  ${"size".padStart(10)}`, ...rows].join("\n");
}

function writeAtomically(path: string, text: string): void {
  const partial = `${path}.${process.pid}.partial`;
  writeFileSync(partial, text);
  renameSync(partial, path);
}

export function releaseManifest(stamp: BuildStamp, files: readonly ReleaseFile[]): string {
  return `${JSON.stringify({ version: stamp.semver, full_version: stamp.version, commit: stamp.commit, date: stamp.date, files }, null, 2)}\n`;
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const stamp = await buildStamp();
  const partials: string[] = [];
  const cleanUp = (): void => {
    for (const path of partials) rmSync(path, { force: true });
  };
  process.on("SIGINT", () => {
    cleanUp();
    process.exit(130);
  });
  process.on("SIGTERM", () => {
    cleanUp();
    process.exit(143);
  });
  const built: { target: ReleaseTarget; partial: string }[] = [];
  for (const target of options.targets) {
    // Ends in the file's own name: for a Windows target bun appends ".exe" to an --outfile without it.
    const partial = join(options.outdir, `.partial-${process.pid}-${target.file}`);
    partials.push(partial, `${partial}.exe`);
    process.stderr.write(`release: building ${target.file} (${target.bunTarget})\n`);
    const result = compileZot({ outfile: partial, stamp, bunTarget: target.bunTarget, releaseTarget: target.id, inheritOutput: false });
    if (!result.ok || !existsSync(partial)) {
      cleanUp();
      const output = result.ok ? "bun build reported success but wrote no file" : result.output.trim();
      const download = /download|fetch|registry|network|ENOTFOUND|ECONNREFUSED|404/i.test(output);
      console.error(
        `release: target ${target.id} (${target.bunTarget}) failed${download ? ": the Bun runtime for this target could not be downloaded" : ""}` +
          `${result.ok ? "" : ` (exit ${result.exitCode})`}\n${output}\nrelease: nothing was written to ${options.outdir}`,
      );
      process.exit(1);
    }
    built.push({ target, partial });
  }
  const files: ReleaseFile[] = built.map(({ target, partial }) => ({
    name: target.file,
    os: target.os,
    arch: target.arch,
    libc: target.libc,
    size: statSync(partial).size,
    sha256: sha256Of(partial),
  }));
  for (const { target, partial } of built) renameSync(partial, join(options.outdir, target.file));
  const installer = readFileSync(join(REPO_ROOT, "install.sh"), "utf8");
  writeAtomically(join(options.outdir, "install.sh"), installer);
  const installerSum = new Bun.CryptoHasher("sha256").update(installer).digest("hex");
  const sums = [...files.map((file) => `${file.sha256}  ${file.name}\n`), `${installerSum}  install.sh\n`];
  writeAtomically(join(options.outdir, "SHA256SUMS"), sums.join(""));
  writeAtomically(join(options.outdir, "release.json"), releaseManifest(stamp, files));
  console.log(sizeTable(files));
  console.log(`release: zot ${stamp.version}, ${files.length} file(s) in ${options.outdir}`);
}

if (import.meta.main) await main();
