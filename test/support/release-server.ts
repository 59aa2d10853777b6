/**
 * A local release server for install.sh and `zot upgrade` tests: Bun.serve
 * on 127.0.0.1 serving the files of one directory (GET /<file>; anything
 * else 404), `withServer` running a body while one serves, plus helpers
 * to fill such a directory with a fake release: tiny shell-script
 * "binaries" that answer `--version`, SHA256SUMS and release.json in
 * scripts/release.ts's formats.
 */
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";

export interface ReleaseServer {
  /** http://127.0.0.1:<port> (no trailing slash). */
  readonly url: string;
  /** Paths requested so far. */
  readonly requests: string[];
  stop(): Promise<void>;
}

export function serveRelease(dir: string): ReleaseServer {
  const requests: string[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const name = decodeURIComponent(new URL(request.url).pathname.slice(1));
      requests.push(name);
      const path = join(dir, basename(name));
      if (name !== basename(name) || name === "" || !existsSync(path) || !statSync(path).isFile()) return new Response("not found\n", { status: 404 });
      return new Response(Bun.file(path));
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, requests, stop: () => server.stop(true) };
}

/** Runs `body` while a release server serves `dir`; the server is stopped after it, also when it throws. */
export async function withServer<T>(dir: string, body: (server: ReleaseServer) => Promise<T>): Promise<T> {
  const server = serveRelease(dir);
  try {
    return await body(server);
  } finally {
    await server.stop();
  }
}

export function sha256Hex(bytes: string | Uint8Array): string {
  return new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
}

/** A shell script that prints `zot <version>` for --version and exits `exitCode` otherwise. */
export function fakeZotScript(version: string, options: { readonly versionExit?: number } = {}): string {
  const exit = options.versionExit ?? 0;
  return `#!/bin/sh\nif [ "\${1:-}" = "--version" ]; then echo "zot ${version}"; exit ${exit}; fi\necho "fake zot ${version}: $*"\n`;
}

export interface FakeReleaseFile {
  readonly name: string;
  readonly content: string | Uint8Array;
}

/** Writes the files (mode 755), SHA256SUMS and release.json for `version` into `dir`. */
export function writeFakeRelease(dir: string, version: string, files: readonly FakeReleaseFile[]): void {
  const entries = files.map((file) => {
    const path = join(dir, file.name);
    writeFileSync(path, file.content);
    chmodSync(path, 0o755);
    const [, os = "", arch = "", musl] = file.name.replace(/\.exe$/, "").split("-");
    return {
      name: file.name, os, arch, libc: os === "linux" ? (musl === "musl" ? "musl" : "glibc") : null,
      size: statSync(path).size, sha256: sha256Hex(readFileSync(path)),
    };
  });
  writeFileSync(join(dir, "SHA256SUMS"), entries.map((entry) => `${entry.sha256}  ${entry.name}\n`).join(""));
  const manifest = { version, full_version: `${version} (fake, 2026-12-01)`, commit: "fake", date: "2026-12-01", files: entries };
  writeFileSync(join(dir, "release.json"), `${JSON.stringify(manifest, null, 2)}\n`);
}
