/**
 * Random (version 4) UUIDs, lowercase, `xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx`,
 * from 16 bytes of /dev/urandom read through `node:fs` (which every run has
 * loaded). crypto.randomUUID() gives the same kind of value, but its first
 * use pulls ≈0.4 MiB of the runtime's crypto code into memory for the one
 * id a print run needs (docs/benchmarks.md, "Sixth pass"). Where
 * /dev/urandom cannot be read (Windows, a sandbox without /dev) it is
 * crypto.randomUUID().
 */
import { closeSync, openSync, readSync } from "node:fs";

function urandomBytes(count: number): Uint8Array | undefined {
  if (process.platform === "win32") return undefined;
  let fd: number | undefined;
  try {
    fd = openSync("/dev/urandom", "r");
    const bytes = new Uint8Array(count);
    return readSync(fd, bytes, 0, count, null) === count ? bytes : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

export function randomUuid(): string {
  const bytes = urandomBytes(16);
  if (bytes === undefined) return crypto.randomUUID();
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
  let hex = "";
  for (const byte of bytes) hex += byte.toString(16).padStart(2, "0");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
