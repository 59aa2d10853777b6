/**
 * src/mcp/config.ts and config-write.ts on real files in temp dirs: the
 * mcpServers shapes other agents write, validation problems naming file,
 * server and field, variable expansion, cwd resolution, precedence
 * (global < project < --mcp), includeProject:false, and edits that keep
 * unknown keys, write 0600 and never overwrite a broken file.
 */
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expandVariables, hasAnyMcpConfig, loadMcpServers, mcpConfigPaths, readMcpFile, type LoadMcpOptions } from "../../src/mcp/config.ts";
import { editMcpFile } from "../../src/mcp/config-write.ts";
import { removeTempDirs, tempDir } from "../support/temp.ts";

afterAll(removeTempDirs);

let home: string;
let cwd: string;
let options: LoadMcpOptions;

beforeEach(() => {
  const base = tempDir("zot-mcp-config-");
  home = join(base, "home");
  cwd = join(base, "project");
  mkdirSync(home);
  mkdirSync(join(cwd, ".zot"), { recursive: true });
  options = { home, cwd, flagFiles: [], includeProject: true };
});

function write(path: string, value: unknown): string {
  writeFileSync(path, typeof value === "string" ? value : JSON.stringify(value));
  return path;
}

describe("reading mcp.json", () => {
  test("stdio and http entries in the shapes other agents write", async () => {
    write(mcpConfigPaths(home, cwd).global, {
      theme: "dark",
      mcpServers: {
        files: { command: "npx", args: ["-y", "server-files", "/tmp"], env: { A: "1" }, cwd: "sub", alwaysAllow: ["x"] },
        typed: { type: "stdio", command: "python3" },
        web: { url: "https://example.com/mcp", headers: { Authorization: "Bearer t" } },
        web2: { type: "streamable-http", url: "http://127.0.0.1:1/mcp" },
        web3: { type: "http", url: "http://127.0.0.1:1/mcp", prefix: "w3_", disabled: true },
      },
    });
    const { servers, problems } = await loadMcpServers(options);
    expect(problems).toEqual([]);
    expect(servers.map((server) => [server.name, server.scope])).toEqual([
      ["files", "global"], ["typed", "global"], ["web", "global"], ["web2", "global"], ["web3", "global"],
    ]);
    expect(servers[0]).toEqual({
      name: "files", scope: "global", file: join(home, "mcp.json"), command: "npx", args: ["-y", "server-files", "/tmp"], env: { A: "1" }, cwd: join(home, "sub"),
      asWritten: { command: "npx", args: ["-y", "server-files", "/tmp"] },
    });
    expect(servers[2]).toMatchObject({ url: "https://example.com/mcp", headers: { Authorization: "Bearer t" } });
    expect(servers[4]).toMatchObject({ prefix: "w3_", disabled: true });
  });

  test("a bad entry is a problem naming file, server and field; the other servers still load", async () => {
    const file = write(mcpConfigPaths(home, cwd).global, {
      mcpServers: {
        good: { command: "true" },
        badArgs: { command: "x", args: "not-an-array" },
        badEnv: { command: "x", env: { A: 1 } },
        sse: { type: "sse", url: "https://example.com/sse" },
        both: { command: "x", url: "https://example.com" },
        neither: { args: [] },
        ftp: { url: "ftp://example.com" },
        "bad name!": { command: "x" },
        notObject: 7,
        badType: { type: "websocket", url: "wss://x" },
      },
    });
    const { servers, problems } = await loadMcpServers(options);
    expect(servers.map((server) => server.name)).toEqual(["good"]);
    const byServer = Object.fromEntries(problems.map((problem) => [problem.server, problem.message.replace(`${file}: server "${problem.server}": `, "")]));
    expect(problems.every((problem) => problem.file === file)).toBe(true);
    expect(byServer.badArgs).toBe('field "args": expected an array of strings');
    expect(byServer.badEnv).toBe('field "env.A": expected a string');
    expect(byServer.sse).toContain("legacy SSE transport is not supported");
    expect(byServer.both).toContain('field "command"');
    expect(byServer.neither).toContain('field "command": required');
    expect(byServer.ftp).toContain('field "url": expected an http:// or https:// URL');
    expect(byServer["bad name!"]).toContain("server name");
    expect(byServer.notObject).toBe("expected an object");
    expect(byServer.badType).toContain('field "type"');
  });

  test("an unparseable, non-object or oversized file is one problem naming it", async () => {
    const file = mcpConfigPaths(home, cwd).global;
    for (const [text, expected] of [
      ["{ nope", "not valid JSON"],
      ["[1,2]", "expected a JSON object"],
      ['{"mcpServers": []}', 'field "mcpServers"'],
      ["[".repeat(300) + "]".repeat(300), "nested deeper than 256"],
      [`{"x": "${"a".repeat(1024 * 1024)}"}`, "larger than 1 MiB"],
    ] as const) {
      write(file, text);
      const { servers, problems } = await loadMcpServers(options);
      expect(servers).toEqual([]);
      expect(problems).toHaveLength(1);
      expect(problems[0]!.file).toBe(file);
      expect(problems[0]!.message).toContain(expected);
    }
  });

  test("project wins over global, --mcp files over both, later --mcp over earlier; includeProject:false skips the project file", async () => {
    const paths = mcpConfigPaths(home, cwd);
    write(paths.global, { mcpServers: { a: { command: "global-a" }, b: { command: "global-b" }, c: { command: "global-c" } } });
    write(paths.project, { mcpServers: { b: { command: "project-b" }, c: { command: "project-c" } } });
    const one = write(join(cwd, "one.json"), { mcpServers: { c: { command: "one-c" }, d: { command: "one-d" } } });
    write(join(cwd, "two.json"), { mcpServers: { d: { command: "two-d" } } });
    const merged = await loadMcpServers({ ...options, flagFiles: ["one.json", "two.json"] });
    const summary = Object.fromEntries(merged.servers.map((server) => [server.name, `${server.scope}:${server.command}`]));
    expect(summary).toEqual({ a: "global:global-a", b: "project:project-b", c: "flag:one-c", d: "flag:two-d" });
    expect(merged.servers.find((server) => server.name === "c")!.file).toBe(one);
    const untrusted = await loadMcpServers({ ...options, includeProject: false });
    expect(untrusted.servers.map((server) => server.command)).toEqual(["global-a", "global-b", "global-c"]);
    // A missing --mcp file is a problem; missing global/project files are not.
    const missing = await loadMcpServers({ ...options, flagFiles: ["nope.json"] });
    expect(missing.problems).toEqual([{ file: join(cwd, "nope.json"), message: `${join(cwd, "nope.json")}: no such file` }]);
  });

  test("hasAnyMcpConfig: existence only, --mcp counts, the project file only when included", () => {
    const paths = mcpConfigPaths(home, cwd);
    expect(hasAnyMcpConfig(options)).toBe(false);
    expect(hasAnyMcpConfig({ ...options, flagFiles: ["x.json"] })).toBe(true);
    write(paths.project, "not even json");
    expect(hasAnyMcpConfig(options)).toBe(true);
    expect(hasAnyMcpConfig({ ...options, includeProject: false })).toBe(false);
    write(paths.global, "{}");
    expect(hasAnyMcpConfig({ ...options, includeProject: false })).toBe(true);
  });
});

describe("variable expansion", () => {
  const env = { TOKEN: "s3cret", EMPTY: "" };

  test("${VAR}, ${VAR:-default}, an empty VAR takes the default, other text is literal", () => {
    expect(expandVariables("Bearer ${TOKEN}", env, "f")).toBe("Bearer s3cret");
    expect(expandVariables("${MISSING:-fallback}/${TOKEN:-x}", env, "f")).toBe("fallback/s3cret");
    expect(expandVariables("${EMPTY:-d}|${EMPTY}", env, "f")).toBe("d|");
    expect(expandVariables("$TOKEN ${1X} ${", env, "f")).toBe("$TOKEN ${1X} ${");
    expect(() => expandVariables("${MISSING}", env, "headers.Authorization")).toThrow('field "headers.Authorization": environment variable MISSING is not set');
  });

  test("expands command, args, env, url and headers; an unset variable is a problem for that server only", () => {
    const file = write(join(cwd, "vars.json"), {
      mcpServers: {
        s: { command: "${BIN}", args: ["--root=${ROOT:-/srv}"], env: { KEY: "${TOKEN}" } },
        h: { url: "https://${HOST}/mcp", headers: { Authorization: "Bearer ${TOKEN}" } },
        broken: { url: "https://x/mcp", headers: { Authorization: "Bearer ${NOPE}" } },
      },
    });
    const read = readMcpFile(file, "flag", { BIN: "/bin/srv", TOKEN: "t0k", HOST: "example.com" });
    expect(read.servers.map((server) => server.name)).toEqual(["s", "h"]);
    expect(read.servers[0]).toMatchObject({ command: "/bin/srv", args: ["--root=/srv"], env: { KEY: "t0k" } });
    expect(read.servers[1]).toMatchObject({ url: "https://example.com/mcp", headers: { Authorization: "Bearer t0k" } });
    expect(read.problems).toEqual([{ file, server: "broken", message: `${file}: server "broken": field "headers.Authorization": environment variable NOPE is not set (write \${NOPE:-default} for a default)` }]);
  });
});

describe("editing mcp.json", () => {
  test("keeps unknown keys and other servers, writes the global file 0600", async () => {
    const file = write(mcpConfigPaths(home, cwd).global, { theme: "x", mcpServers: { keep: { command: "k", timeout: 5 } }, tail: [1] });
    chmodSync(file, 0o644);
    await editMcpFile(file, { scope: "global" }, (servers) => {
      servers.added = { command: "a" };
      return true;
    });
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ theme: "x", mcpServers: { keep: { command: "k", timeout: 5 }, added: { command: "a" } }, tail: [1] });
    expect(Object.keys(JSON.parse(readFileSync(file, "utf8")))).toEqual(["theme", "mcpServers", "tail"]);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  test("a broken file is refused naming it, and left byte for byte", async () => {
    const file = mcpConfigPaths(home, cwd).project;
    for (const text of ["{ broken", '{"mcpServers": "x"}', "[]"]) {
      write(file, text);
      const edit = editMcpFile(file, { scope: "project" }, () => true);
      await expect(edit).rejects.toThrow(file);
      expect(readFileSync(file, "utf8")).toBe(text);
    }
  });
});
