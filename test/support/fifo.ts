/**
 * FIFOs for tests of output nobody reads (yet): `stalledFifo` makes one and
 * opens it read-write (so opening never waits for a reader, and no write
 * end ever sees EPIPE) plus a non-blocking read end the test reads when it
 * chooses; `readUntil` drains that read end until the text ends with a
 * marker; `unreadBytes` says how much waits in it (FIONREAD, through
 * python3); `statusFlags` reads a descriptor's file status flags
 * (O_NONBLOCK…) from /proc (Linux).
 */
import { closeSync, constants, openSync, readFileSync, readSync } from "node:fs";
import { join } from "node:path";

export interface StalledFifo {
  readonly path: string;
  /** Read-write: give it to a child as its stdout or stderr. */
  readonly writeEnd: number;
  /** Non-blocking read end. */
  readonly readEnd: number;
  close(): void;
}

export function stalledFifo(dir: string, name = "out.fifo"): StalledFifo {
  const path = join(dir, name);
  const made = Bun.spawnSync(["mkfifo", path]);
  if (!made.success) throw new Error(`mkfifo ${path} failed`);
  const writeEnd = openSync(path, "r+");
  const readEnd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  return {
    path,
    writeEnd,
    readEnd,
    close: () => {
      closeSync(writeEnd);
      closeSync(readEnd);
    },
  };
}

/** Reads `readEnd` until the text read ends with `marker` (or `timeoutMs` passes); returns the text. */
export async function readUntil(readEnd: number, marker: string, timeoutMs = 20_000): Promise<string> {
  let text = "";
  const buffer = Buffer.alloc(65536);
  const deadline = Date.now() + timeoutMs;
  while (!text.endsWith(marker) && Date.now() < deadline) {
    try {
      const read = readSync(readEnd, buffer, 0, buffer.length, null);
      text += buffer.toString("utf8", 0, read);
    } catch {
      await Bun.sleep(5); // EAGAIN: nothing there yet
    }
  }
  return text;
}

/** The file status flags of our descriptor `fd` (shared with any child it was given to). */
export function statusFlags(fd: number): number {
  const match = /^flags:\s*([0-7]+)$/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, "utf8"));
  return parseInt(match?.[1] ?? "0", 8);
}

const FIONREAD = `import fcntl, os, struct, sys, termios
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_NONBLOCK)
print(struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\\0" * 4))[0])`;

/** Bytes written into the FIFO at `path` and not read yet (a default Linux pipe is full at 65536). */
export function unreadBytes(path: string): number {
  const result = Bun.spawnSync(["python3", "-c", FIONREAD, path]);
  return result.success ? Number(result.stdout.toString().trim()) : -1;
}
