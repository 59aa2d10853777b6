/**
 * The few libc calls zot needs that Node's API lacks, through bun:ffi:
 * prctl(PR_SET_CHILD_SUBREAPER) on Linux, flock(2) on Linux and macOS,
 * a non-blocking waitpid(2) of one given pid (never -1: Bun waits for its own
 * children and an unexpected ECHILD there crashes it), and send(2) with
 * MSG_DONTWAIT (a non-blocking write to a socket that leaves the socket's
 * shared flags alone; common/fd-writer.ts), and on Linux pipe2(2) with
 * O_CLOEXEC (one pipe given to a child as both stdout and stderr: the bash
 * tool, tools/bash-run.ts), and isatty(3) once libc is open anyway
 * (terminal-text.ts; node:tty costs more than the call), and signal(2) with
 * SIG_IGN (the chat screen ending while suspended in the background: Bun's
 * own terminal reset at exit must not stop it with SIGTTOU).
 * libc is opened lazily on first use (never at import time) and at most
 * once; on a platform or libc where it cannot be opened every call reports
 * "unsupported" instead of throwing, so callers degrade explicitly.
 */
import type { Pointer } from "bun:ffi";

export type LibcResult = { readonly ok: true } | { readonly ok: false; readonly reason: "unsupported" | "failed"; readonly errno?: number };

interface LibcSymbols {
  prctl?: (option: number, arg2: number, arg3: number, arg4: number, arg5: number) => number;
  flock: (fd: number, operation: number) => number;
  waitpid: (pid: number, status: Pointer | null, options: number) => number;
  send: (fd: number, bytes: Uint8Array, length: number, flags: number) => number;
  pipe2?: (fds: Int32Array, flags: number) => number;
  isatty: (fd: number) => number;
  signal: (signo: number, handler: number) => number | bigint;
  errnoLocation: () => Pointer | null;
}

const PR_SET_CHILD_SUBREAPER = 36;
const WNOHANG = 1;
export const LOCK_SH = 1;
export const LOCK_EX = 2;
export const LOCK_NB = 4;
export const LOCK_UN = 8;
/** errno of a non-blocking flock on a file someone else holds (EWOULDBLOCK = EAGAIN). */
export const EWOULDBLOCK = process.platform === "darwin" ? 35 : 11;
export const EINTR = 4;
/** send(2) flags: never wait; on Linux also no SIGPIPE for a closed peer (macOS has no such flag). */
const SEND_FLAGS = process.platform === "darwin" ? 0x80 : 0x40 | 0x4000;
/** Linux O_CLOEXEC: neither end leaks into other children spawned meanwhile. */
const O_CLOEXEC = 0o2000000;

let loaded: { symbols: LibcSymbols; read: (pointer: Pointer) => number } | null | undefined;

function libc(): typeof loaded {
  if (loaded !== undefined) return loaded;
  loaded = null;
  if (process.platform !== "linux" && process.platform !== "darwin") return loaded;
  try {
    // Required lazily: bun:ffi is only loaded by the modes that need it.
    const ffi = require("bun:ffi") as typeof import("bun:ffi");
    const { FFIType } = ffi;
    const linux = process.platform === "linux";
    const names = linux ? ["libc.so.6", "libc.so"] : ["libSystem.B.dylib"];
    for (const name of names) {
      try {
        const lib = ffi.dlopen(name, {
          flock: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 },
          waitpid: { args: [FFIType.i32, FFIType.ptr, FFIType.i32], returns: FFIType.i32 },
          send: { args: [FFIType.i32, FFIType.ptr, FFIType.u64, FFIType.i32], returns: FFIType.i64_fast },
          isatty: { args: [FFIType.i32], returns: FFIType.i32 },
          signal: { args: [FFIType.i32, FFIType.u64], returns: FFIType.u64 },
          [linux ? "__errno_location" : "__error"]: { args: [], returns: FFIType.ptr },
          ...(linux
            ? {
                prctl: { args: [FFIType.i32, FFIType.u64, FFIType.u64, FFIType.u64, FFIType.u64], returns: FFIType.i32 },
                pipe2: { args: [FFIType.ptr, FFIType.i32], returns: FFIType.i32 },
              }
            : {}),
        });
        const symbols = lib.symbols as unknown as Record<string, (...args: number[]) => unknown>;
        loaded = {
          symbols: {
            prctl: linux ? (symbols.prctl as LibcSymbols["prctl"]) : undefined,
            flock: symbols.flock as LibcSymbols["flock"],
            waitpid: symbols.waitpid as LibcSymbols["waitpid"],
            send: symbols.send as unknown as LibcSymbols["send"],
            pipe2: linux ? (symbols.pipe2 as unknown as LibcSymbols["pipe2"]) : undefined,
            isatty: symbols.isatty as LibcSymbols["isatty"],
            signal: symbols.signal as unknown as LibcSymbols["signal"],
            errnoLocation: symbols[linux ? "__errno_location" : "__error"] as LibcSymbols["errnoLocation"],
          },
          read: (pointer) => ffi.read.i32(pointer, 0),
        };
        return loaded;
      } catch {
        // try the next name
      }
    }
  } catch {
    // bun:ffi unavailable
  }
  return loaded;
}

function lastErrno(lib: NonNullable<typeof loaded>): number | undefined {
  const pointer = lib.symbols.errnoLocation();
  return pointer === null ? undefined : lib.read(pointer);
}

/** SIGTTOU on Linux and macOS. */
export const SIGTTOU = 22;
/** signal(2)'s SIG_IGN and SIG_ERR. */
const SIG_IGN = 1;

/** The process ignores `signo` from now on (signal(2) with SIG_IGN). */
export function ignoreSignal(signo: number): LibcResult {
  const lib = libc();
  if (!lib) return { ok: false, reason: "unsupported" };
  const previous = lib.symbols.signal(signo, SIG_IGN);
  // SIG_ERR is (void *)-1.
  if (previous === -1 || previous === 0xffffffffffffffffn || previous === 18446744073709552000) return { ok: false, reason: "failed", errno: lastErrno(lib) };
  return { ok: true };
}

/** Linux: orphaned descendants are re-parented to this process instead of init. */
export function becomeChildSubreaper(): LibcResult {
  const lib = libc();
  if (!lib?.symbols.prctl) return { ok: false, reason: "unsupported" };
  if (lib.symbols.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) === 0) return { ok: true };
  return { ok: false, reason: "failed", errno: lastErrno(lib) };
}

/** flock(2) on an open descriptor; `operation` is LOCK_SH / LOCK_EX / LOCK_UN, optionally | LOCK_NB. */
export function flock(fd: number, operation: number): LibcResult {
  const lib = libc();
  if (!lib) return { ok: false, reason: "unsupported" };
  if (lib.symbols.flock(fd, operation) === 0) return { ok: true };
  return { ok: false, reason: "failed", errno: lastErrno(lib) };
}

/**
 * Collects the exit status of the zombie child `pid` without waiting
 * (WNOHANG): a child that has not exited yet gives ok:false, reason
 * "failed" and no errno. Only for children Bun does not wait for.
 */
export function reapChild(pid: number): LibcResult {
  if (!Number.isInteger(pid) || pid <= 0) return { ok: false, reason: "failed" };
  const lib = libc();
  if (!lib) return { ok: false, reason: "unsupported" };
  const result = lib.symbols.waitpid(pid, null, WNOHANG);
  if (result === pid) return { ok: true };
  return { ok: false, reason: "failed", errno: result === 0 ? undefined : lastErrno(lib) };
}

/** Whether libc could be opened (loads it on first use). */
export function libcAvailable(): boolean {
  return Boolean(libc());
}

/**
 * send(2) of `bytes` on the socket `fd` without waiting (MSG_DONTWAIT): the
 * number of bytes the socket took, or -errno (-EWOULDBLOCK when it is full);
 * undefined when libc is unavailable.
 */
export function sendNonBlocking(fd: number, bytes: Uint8Array): number | undefined {
  if (bytes.length === 0) return 0;
  const lib = libc();
  if (!lib) return undefined;
  const sent = lib.symbols.send(fd, bytes, bytes.length, SEND_FLAGS);
  // An unreadable errno counts as a failure (EIO), never as "try again".
  return sent >= 0 ? sent : -(lastErrno(lib) ?? 5);
}

/**
 * Linux: a new pipe, both ends close-on-exec (a child gets an end only
 * through Bun.spawn's stdio, which dup2s it); the caller closes both.
 * undefined where there is no pipe2 (macOS, no libc) or it failed (EMFILE…).
 */
export function cloexecPipe(): { readonly read: number; readonly write: number } | undefined {
  const lib = libc();
  if (!lib?.symbols.pipe2) return undefined;
  const fds = new Int32Array(2);
  if (lib.symbols.pipe2(fds, O_CLOEXEC) !== 0) return undefined;
  return { read: fds[0]!, write: fds[1]! };
}

/**
 * isatty(3) of `fd` when libc is already open (the modes that run the
 * process-tree guard); undefined otherwise — this never opens libc, so a
 * route that has not loaded bun:ffi does not start to for a tty check.
 */
export function isattyIfLoaded(fd: number): boolean | undefined {
  if (!loaded) return undefined;
  return loaded.symbols.isatty(fd) === 1;
}
