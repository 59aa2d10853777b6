/**
 * The one way zot is compiled, shared by scripts/build.ts (dist/zot for
 * this machine) and scripts/release.ts (every release target):
 * minified, bytecode-compiled, version baked in ("<semver> (<commit>,
 * <date>)"), and sealed against the user's environment: the binary never
 * autoloads a bunfig.toml, .env, tsconfig.json or package.json at run time.
 * The bytecode is laid out by scripts/bytecode-order.txt when that file
 * exists (`bun build --bytecode-order`: the functions zot's common routes
 * use first; `npm run bytecode-order` records it), for every target alike;
 * `bytecodeOrder: false` builds without it, a list of files by those.
 * compileZot writes exactly `outfile` (the caller picks a temp name and
 * renames it); on failure it removes what it wrote and returns Bun's output.
 */
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";

export const REPO_ROOT = join(import.meta.dir, "..");
/** Written by scripts/bytecode-order.ts; a stale profile still applies (changed functions land in the cold part). */
export const BYTECODE_ORDER_FILE = join(REPO_ROOT, "scripts", "bytecode-order.txt");

/**
 * The `bun build` flags of every zot executable (before the version
 * defines, the bytecode order and the target); the benchmarks compile
 * their floor programs with them too.
 */
export const COMPILE_FLAGS: readonly string[] = [
  "--compile", "--minify", "--bytecode", "--format=esm", "--splitting",
  // Each run is short: stay in the interpreter longer before JIT tiers (≈4 MB less RSS, a few ms less).
  "--compile-jit-policy=10",
  "--no-compile-autoload-dotenv", "--no-compile-autoload-bunfig",
  "--no-compile-autoload-tsconfig", "--no-compile-autoload-package-json",
  // Any baked-in runtime flag makes the executable start from a removed working directory (process.cwd()
  // then throws, common/cwd.ts says so); without one Bun refuses before zot runs. This one is harmless.
  "--compile-exec-argv=--no-deprecation",
];

export interface BuildStamp {
  readonly semver: string;
  readonly commit: string;
  /** YYYY-MM-DD (UTC). */
  readonly date: string;
  /** What `zot --version` prints after "zot ". */
  readonly version: string;
}

function gitShortCommit(): string {
  const result = Bun.spawnSync(["git", "rev-parse", "--short=7", "HEAD"], { cwd: REPO_ROOT, stderr: "ignore" });
  return result.success ? result.stdout.toString().trim() : "unknown";
}

export async function buildStamp(): Promise<BuildStamp> {
  const pkg = (await Bun.file(join(REPO_ROOT, "package.json")).json()) as { version: string };
  const commit = gitShortCommit();
  const date = new Date().toISOString().slice(0, 10);
  return { semver: pkg.version, commit, date, version: `${pkg.version} (${commit}, ${date})` };
}

export interface CompileRequest {
  readonly outfile: string;
  readonly stamp: BuildStamp;
  /** bun build --target (e.g. "bun-linux-arm64"); undefined: this machine. */
  readonly bunTarget?: string;
  /** Baked in as ZOT_BUILD_TARGET (the release target id, read by `zot upgrade`). */
  readonly releaseTarget?: string;
  /** Inherit stdout/stderr (true) or capture them into the result (false). */
  readonly inheritOutput: boolean;
  /** Order files, most common route first; false: none (the recording build); default: BYTECODE_ORDER_FILE if it exists. */
  readonly bytecodeOrder?: false | readonly string[];
}

export type CompileResult = { readonly ok: true } | { readonly ok: false; readonly exitCode: number | null; readonly output: string };

export function compileZot(request: CompileRequest): CompileResult {
  mkdirSync(dirname(request.outfile), { recursive: true });
  const orderFiles = request.bytecodeOrder ?? (existsSync(BYTECODE_ORDER_FILE) ? [BYTECODE_ORDER_FILE] : false);
  const args = [
    process.execPath, "build", join(REPO_ROOT, "src", "cli", "main.ts"),
    ...COMPILE_FLAGS,
    // One profile serves every --target (hashes of the functions' syntax, not addresses).
    ...(orderFiles === false || orderFiles.length === 0 ? [] : [`--bytecode-order=${orderFiles.join(",")}`]),
    "--define", `ZOT_BUILD_VERSION=${JSON.stringify(request.stamp.version)}`,
    ...(request.releaseTarget === undefined ? [] : ["--define", `ZOT_BUILD_TARGET=${JSON.stringify(request.releaseTarget)}`]),
    ...(request.bunTarget === undefined ? [] : [`--target=${request.bunTarget}`]),
    "--outfile", request.outfile,
  ];
  const io = request.inheritOutput ? "inherit" : "pipe";
  const proc = Bun.spawnSync(args, { cwd: REPO_ROOT, stdout: io, stderr: io });
  if (proc.success) return { ok: true };
  rmSync(request.outfile, { force: true });
  const output = request.inheritOutput ? "" : `${proc.stdout?.toString() ?? ""}${proc.stderr?.toString() ?? ""}`;
  return { ok: false, exitCode: proc.exitCode, output };
}
