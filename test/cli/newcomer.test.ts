/**
 * A newcomer's first commands, through dist/zot: every subcommand and ext /
 * mcp sub-subcommand answers `--help` with exit 0 and a usage line; `zot --help`
 * lists every subcommand main.ts routes and the main environment variables;
 * unknown flags, subcommands, ext commands, providers and models fail
 * (non-zero, stderr naming what was wrong) with a "did you mean" when one is
 * close, and an unknown model always points to --list-models (and names
 * config.json when the model came from there); a print-mode
 * /word close to an extension's command gets a note on stderr.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT, runZot, tempDir } from "../support/binary.ts";
import { copyFixture } from "../support/extensions.ts";
import { removeTempDirs } from "../support/temp.ts";
import { useModeEnv, type ModeEnv } from "../modes/helpers.ts";

afterAll(removeTempDirs);

/** The subcommands main.ts routes on its first argument (the hidden swarm-child aside). */
function routedSubcommands(): string[] {
  const source = readFileSync(join(REPO_ROOT, "src", "cli", "main.ts"), "utf8");
  const names = [...source.matchAll(/first === "([a-z-]+)"/g)].map((match) => match[1]!);
  return [...new Set(names)].filter((name) => name !== "swarm-child");
}

/** The commands `zot <parent> --help` names on its USAGE line (citty: `USAGE zot ext list|doctor|…`). */
async function subCommands(parent: string): Promise<string[]> {
  const help = await runZot([parent, "--help"]);
  const line = new RegExp(`USAGE zot ${parent} (\\S+)`).exec(help.stdout)?.[1] ?? "";
  return line.split("|").filter(Boolean);
}

describe("--help everywhere", () => {
  test("zot --help lists every routed subcommand (and upgrade) and the main environment variables", async () => {
    const routed = routedSubcommands();
    expect(routed).toEqual(expect.arrayContaining(["ext", "rpc", "login", "logout", "agents"]));
    const result = await runZot(["--help"]);
    expect(result.code).toBe(0);
    for (const name of [...routed, "upgrade"]) expect(result.stdout).toMatch(new RegExp(`^  zot ${name}\\b`, "m"));
    for (const variable of ["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "ZOT_HOME", "ZOT_STREAM_IDLE_TIMEOUT_MS"]) expect(result.stdout).toContain(variable);
    expect(result.stdout).toContain("README.md");
  });

  test("every subcommand and every ext / mcp command answers --help: exit 0, a usage line, the command named", async () => {
    const ext = await subCommands("ext");
    expect(ext).toEqual(expect.arrayContaining(["list", "install", "remove", "rm", "new", "test", "logs"]));
    const routed = routedSubcommands();
    const mcp = routed.includes("mcp") ? await subCommands("mcp") : [];
    if (routed.includes("mcp")) expect(mcp).toEqual(expect.arrayContaining(["list", "add"]));
    const commands: string[][] = [...routed.map((name) => [name]), ...ext.map((name) => ["ext", name]), ...mcp.map((name) => ["mcp", name])];
    const failures: string[] = [];
    for (const command of commands) {
      for (const flag of ["--help", "-h"]) {
        const result = await runZot([...command, flag]);
        // `rm` is remove's alias: its usage names remove.
        const shown = command.at(-1) === "rm" ? [...command.slice(0, -1), "remove"] : command;
        const named = new RegExp(`\\bzot ${shown.join(" ")}\\b`);
        if (result.code !== 0 || !/usage:?\s+zot\b/i.test(result.stdout) || !named.test(result.stdout)) {
          failures.push(`zot ${[...command, flag].join(" ")}: exit ${result.code}\n${result.stdout}${result.stderr}`);
        }
      }
    }
    expect(failures).toEqual([]);
  }, 120_000);
});

describe("did you mean", () => {
  test("an unknown flag: exit 2, stderr names it and the close one", async () => {
    const typo = await runZot(["--modle", "x"]);
    expect(typo.code).toBe(2);
    expect(typo.stdout).toBe("");
    expect(typo.stderr).toBe('zot: unknown flag "--modle" (did you mean --model?)\nrun \'zot --help\' for usage\n');
    const oneDash = await runZot(["-model", "x"]);
    expect(oneDash.code).toBe(2);
    expect(oneDash.stderr).toContain('unknown flag "-model" (did you mean --model?)');
    const far = await runZot(["--frobnicate"]);
    expect(far.code).toBe(2);
    expect(far.stderr).toBe('zot: unknown flag "--frobnicate"\nrun \'zot --help\' for usage\n');
  });

  test("an unknown subcommand: exit 2 with the close one and how to send the word as a prompt", async () => {
    const typo = await runZot(["upgade"]);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain(`unknown command "upgade" (did you mean 'zot upgrade'?); to send it to the model as a prompt, write: zot -- upgade`);
    expect((await runZot(["logn", "--help"])).stderr).toContain("did you mean 'zot login'?");
    const ext = await runZot(["ext", "instal", "./x"]);
    expect(ext.code).toBe(2);
    expect(ext.stderr).toContain(`unknown ext command "instal" (did you mean 'zot ext install'?)`);
    const extFlag = await runZot(["ext", "list", "--cdw", "."]);
    expect(extFlag.code).toBe(2);
    expect(extFlag.stderr).toContain(`unknown flag "--cdw" (did you mean --cwd?)`);
    expect((await runZot(["agents", "--jsno"])).stderr).toContain(`unknown argument "--jsno" (did you mean --json?)`);
    expect((await runZot(["login", "--hepl"])).stderr).toContain(`unknown flag "--hepl" (did you mean --help?)`);
    const provider = await runZot(["login", "anthropc"], { stdin: "sk-x" });
    expect(provider.code).toBe(2);
    expect(provider.stderr).toContain(`unknown provider "anthropc" (did you mean anthropic? expected anthropic, openai or kimi)`);
  });

  test("a word that is not close to a subcommand is still a prompt (no usage error)", async () => {
    // Print mode without a key: the run gets as far as the key lookup.
    const result = await runZot(["-p", "agent"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("no API key for anthropic");
    const words = await runZot(["agent", "fix", "the", "tests", "-p"]);
    expect(words.stderr).toContain("no API key for anthropic");
  });

  test("an unknown model: exit 1, the close ids (another provider's with its flag) and always --list-models", async () => {
    const typo = await runZot(["-m", "claude-sonet-4", "-p", "hi", "--api-key", "k"]);
    expect(typo.code).toBe(1);
    expect(typo.stdout).toBe("");
    expect(typo.stderr).toBe('zot: unknown model "claude-sonet-4" for provider anthropic (did you mean claude-sonnet-4-5, claude-sonnet-4-0 or claude-sonnet-4-6?); run `zot --list-models` for the known ones\n');
    const other = await runZot(["--model", "gpt5", "-p", "hi", "--api-key", "k"]);
    expect(other.code).toBe(1);
    expect(other.stderr).toContain("(did you mean --provider openai --model gpt-5?)");
    const home = tempDir("zot-home-");
    writeFileSync(join(home, "config.json"), JSON.stringify({ model: "claude-sonet-4" }));
    const fromConfig = await runZot(["-p", "hi", "--api-key", "k"], { home });
    expect(fromConfig.code).toBe(1);
    expect(fromConfig.stderr).toStartWith(`zot: ${join(home, "config.json")}: unknown model "claude-sonet-4" for provider anthropic (did you mean claude-sonnet-4-5`);
    const far = await runZot(["--model", "nothing-like-it", "-p", "hi", "--api-key", "k"]);
    expect(far.code).toBe(1);
    expect(far.stderr).toBe('zot: unknown model "nothing-like-it" for provider anthropic; run `zot --list-models` for the known ones\n');
  });
});

describe("a print-mode /word close to an extension command", () => {
  let env: ModeEnv;
  useModeEnv((created) => (env = created));

  test("is sent to the model as before, with a note on stderr naming the command", async () => {
    const extension = copyFixture(env.base, "py-hello");
    env.server.enqueue({ type: "text", text: "model answer" });
    const result = await env.run(["-p", "/hellopi there", "--ext", extension, ...env.providerArgs()]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("model answer\n");
    expect(result.stderr).toBe("zot: note: /hellopi is not a command of any extension (did you mean /hellopy?); sent to the model as a prompt\n");
    expect(env.server.requests).toHaveLength(1);
  });
});
