/**
 * Shared pieces of the project-trust tests: a project-local (or global)
 * extension whose program appends a line to a marker file when it starts,
 * then speaks just enough of the protocol (hello, ready, shutdown_ack), and
 * readers for the marker and the trust store.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ModeEnv } from "../modes/helpers.ts";

export function markerExtension(root: string, name: string, marker: string): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "extension.json"), JSON.stringify({ name, exec: "sh", args: ["main.sh"] }));
  writeFileSync(
    join(dir, "main.sh"),
    [
      "#!/bin/sh",
      `echo started >> '${marker}'`,
      `printf '{"type":"hello","name":"${name}","version":"1.0.0"}\\n'`,
      "while IFS= read -r line; do",
      "  case \"$line\" in",
      "    *'\"type\":\"hello_ack\"'*) printf '{\"type\":\"ready\"}\\n' ;;",
      "    *'\"type\":\"shutdown\"'*) printf '{\"type\":\"shutdown_ack\"}\\n'; exit 0 ;;",
      "  esac",
      "done",
      "",
    ].join("\n"),
  );
  return dir;
}

/** The project's ./.zot/extensions/<name> marker extension; its marker file is <base>/<name>.started. */
export function projectMarker(env: ModeEnv, name = "marker"): { dir: string; marker: string } {
  const marker = join(env.base, `${name}.started`);
  return { dir: markerExtension(join(env.cwd, ".zot", "extensions"), name, marker), marker };
}

/** How many times the marker extension started (0: never). */
export function starts(marker: string): number {
  return existsSync(marker) ? readFileSync(marker, "utf8").split("\n").filter((line) => line === "started").length : 0;
}

export function trustFile(env: ModeEnv): string {
  return join(env.home, "trust.json");
}

export function storedProjects(env: ModeEnv): Record<string, { decision: string; fingerprint: string; at: string }> {
  return (JSON.parse(readFileSync(trustFile(env), "utf8")) as { projects: Record<string, { decision: string; fingerprint: string; at: string }> }).projects;
}

/** Lines of stderr that report project extensions or MCP servers left out. */
export function gateLines(stderr: string): string[] {
  return stderr.split("\n").filter((line) => /project (extensions|MCP servers|extensions and MCP servers) not started/.test(line));
}
