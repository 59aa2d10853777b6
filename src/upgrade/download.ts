/**
 * Bounded HTTP downloads for `zot upgrade`: GET a URL (redirects followed)
 * and read the body with a size bound (a Content-Length above it is refused
 * before reading; a body that grows past it is cut off) and an idle bound
 * (no response or no byte for idleMs aborts). fetchText keeps the body in
 * memory; downloadToFile streams it into a new file (created exclusively,
 * mode 0700) hashing it on the way, fsynced before it is closed. Every failure is a ZotError naming the
 * URL: "upgrade.unreachable" (connection refused, DNS, TLS: no network or
 * server down), "upgrade.http" (a status other than 2xx; context status),
 * "upgrade.too_large", "upgrade.idle"; a file that cannot be written is
 * "upgrade.write" (context path) and is removed.
 */
import { open, rm } from "node:fs/promises";
import { ZotError, errorMessage, systemErrorCode } from "../common/errors.ts";

export interface DownloadLimits {
  readonly maxBytes: number;
  readonly idleMs: number;
}

function formatLimit(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`;
}

function connectionProblem(err: unknown): string {
  const code = systemErrorCode(err);
  if (code === "ECONNREFUSED" || code === "ConnectionRefused") return "connection refused";
  if (code === "ENOTFOUND" || code === "DNSException" || code === "EAI_AGAIN") return "host not found";
  if (code === "ECONNRESET" || code === "ConnectionClosed") return "connection closed by the server";
  return errorMessage(err);
}

/** Streams the body of `url` chunk by chunk into `onChunk`; returns the byte count. */
async function streamBody(url: string, limits: DownloadLimits, onChunk: (bytes: Uint8Array) => Promise<void>): Promise<number> {
  const controller = new AbortController();
  let idle = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = (): void => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      idle = true;
      controller.abort();
    }, limits.idleMs);
  };
  const idleError = (): ZotError =>
    new ZotError("upgrade.idle", `${url}: no data for ${limits.idleMs / 1000} s; giving up (slow or stalled network)`, { url });
  arm();
  try {
    let response: Response;
    try {
      response = await fetch(url, { signal: controller.signal, redirect: "follow" });
    } catch (err) {
      if (idle) throw idleError();
      throw new ZotError("upgrade.unreachable", `cannot reach ${url}: ${connectionProblem(err)} (no network, or the release server is down)`, { url, cause: systemErrorCode(err) });
    }
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      throw new ZotError("upgrade.http", `${url}: HTTP ${response.status}${response.status === 404 ? " (not found: no such release or file)" : ""}`, { url, status: response.status });
    }
    const declared = Number(response.headers.get("content-length") ?? "NaN");
    const tooLarge = (): ZotError => new ZotError("upgrade.too_large", `${url} is larger than the ${formatLimit(limits.maxBytes)} allowed; refused`, { url, limit: limits.maxBytes });
    if (Number.isFinite(declared) && declared > limits.maxBytes) {
      await response.body?.cancel().catch(() => undefined);
      throw tooLarge();
    }
    if (response.body === null) return 0;
    const reader = response.body.getReader();
    let size = 0;
    try {
      for (;;) {
        let chunk: Awaited<ReturnType<typeof reader.read>>;
        try {
          chunk = await reader.read();
        } catch (err) {
          if (idle) throw idleError();
          throw new ZotError("upgrade.unreachable", `${url}: the download broke off: ${errorMessage(err)}`, { url });
        }
        if (chunk.done) return size;
        arm();
        size += chunk.value.byteLength;
        if (size > limits.maxBytes) throw tooLarge();
        await onChunk(chunk.value);
      }
    } finally {
      await reader.cancel().catch(() => undefined);
    }
  } finally {
    clearTimeout(timer);
  }
}

/** The body of `url` as text. */
export async function fetchText(url: string, limits: DownloadLimits): Promise<string> {
  const parts: Uint8Array[] = [];
  await streamBody(url, limits, async (bytes) => {
    parts.push(bytes);
  });
  return new TextDecoder().decode(Buffer.concat(parts));
}

export interface DownloadedFile {
  readonly size: number;
  readonly sha256: string;
}

/** Streams `url` into the new file `path` (must not exist); removes it on any failure. */
export async function downloadToFile(url: string, path: string, limits: DownloadLimits): Promise<DownloadedFile> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, "wx", 0o700);
  } catch (err) {
    throw new ZotError("upgrade.write", `cannot create ${path}: ${errorMessage(err)}`, { path, cause: systemErrorCode(err) });
  }
  const hasher = new Bun.CryptoHasher("sha256");
  let done = false;
  try {
    const size = await streamBody(url, limits, async (bytes) => {
      hasher.update(bytes);
      try {
        await handle.write(bytes);
      } catch (err) {
        throw new ZotError("upgrade.write", `cannot write ${path}: ${errorMessage(err)}`, { path, cause: systemErrorCode(err) });
      }
    });
    await handle.sync();
    await handle.close();
    done = true;
    return { size, sha256: hasher.digest("hex") };
  } finally {
    if (!done) {
      await handle.close().catch(() => undefined);
      await rm(path, { force: true });
    }
  }
}
