/**
 * Input validation through dist/zot: an unknown --tools name, a value flag
 * followed by another flag and two modes at once are usage errors (exit 2,
 * one line naming what is wrong, no model request); a config.json that is
 * not an object or has a wrong field, and a models.json with a non-integer
 * token count, are warnings naming the file and field while the run goes on
 * with the defaults for what was wrong.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { useModeEnv, type ModeEnv } from "../modes/helpers.ts";

let env: ModeEnv;
useModeEnv((created) => (env = created));

async function expectUsageError(args: readonly string[], ...mentions: string[]): Promise<string> {
  const result = await env.run(args);
  expect(result.code).toBe(2);
  const line = result.stderr.split("\n")[0] ?? "";
  expect(line).toStartWith("zot: ");
  for (const mention of mentions) expect(line).toContain(mention);
  expect(result.stderr).toContain("run 'zot --help' for usage");
  expect(result.stderr).not.toContain("    at ");
  expect(env.server.requests).toHaveLength(0);
  return result.stdout;
}

describe("usage errors", () => {
  test("--tools with an unknown name lists the valid built-ins", async () => {
    await expectUsageError(["-p", "hi", "--tools", "read,grep", ...env.providerArgs()], '"grep"', "read, write, edit, bash");
    await expectUsageError(["-p", "hi", "--tools=bash,skill,Read", ...env.providerArgs()], '"Read"');
    // JSON mode reports it as its single error line too.
    const stdout = await expectUsageError(["--json", "hi", "--tools", "nope", ...env.providerArgs()], '"nope"');
    expect(JSON.parse(stdout)).toMatchObject({ type: "error" });

    env.server.enqueue({ type: "text", text: "fine" });
    const valid = await env.run(["-p", "hi", "--tools", " read , bash ", ...env.providerArgs()]);
    expect(valid.code).toBe(0);
  });

  test("a value flag followed by another flag is an error naming both, with the = spelling for dash values", async () => {
    await expectUsageError(["--model", "-p", "hi", ...env.providerArgs()], "--model", '"-p"', "--model=-p");
    await expectUsageError(["-p", "hi", "-e", "--no-ext", ...env.providerArgs()], "-e", '"--no-ext"', "--ext=--no-ext");
    await expectUsageError(["-p", "hi", "--max-steps", "-1", ...env.providerArgs()], "--max-steps", '"-1"');

    // `=` still passes a value that starts with "-", and a lone "-" is a word.
    env.server.enqueue({ type: "text", text: "ok" });
    const dashValue = await env.run(["-p", "hi", "--append-system-prompt=- be brief", "-", ...env.providerArgs()]);
    expect(dashValue.code).toBe(0);
    expect(JSON.stringify(env.server.requests[0]?.body)).toContain("- be brief");
  });

  test("two modes at once are an error naming both", async () => {
    await expectUsageError(["--json", "-p", "hi", ...env.providerArgs()], "-p/--print", "--json");
    await expectUsageError(["rpc", "-p", ...env.providerArgs()], "-p/--print", "rpc/--rpc");
    await expectUsageError(["--json", "--rpc", ...env.providerArgs()], "--json", "rpc/--rpc");
    await expectUsageError(["-pc", "--json", "hi", ...env.providerArgs()], "-p/--print", "--json");
  });

  test("--help stays readable: the modes, the = rule and the --tools names are explained", async () => {
    const help = await env.run(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("zot rpc [flags]");
    expect(help.stdout).toContain("-p, --json and rpc are separate modes: give at most one.");
    expect(help.stdout).toContain('--append-system-prompt="- be brief"');
    expect(help.stdout).toContain("only these built-in tools (read, write, edit, bash, agent)");
    // Help wins over everything else on the line, conflicting modes included.
    expect((await env.run(["--json", "-p", "--help"])).code).toBe(0);
  });
});

describe("config warnings", () => {
  test("a config.json that is not an object is a warning naming the file; the run goes on with defaults", async () => {
    const file = join(env.home, "config.json");
    writeFileSync(file, JSON.stringify(["openai", "gpt-5"]));
    env.server.enqueue({ type: "text", text: "defaults" });
    const result = await env.run(["-p", "hi", ...env.providerArgs()]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("defaults\n");
    expect(result.stderr).toContain(`zot: warning: ${file}: expected a JSON object at the top level, got an array; ignored`);
  });

  test("a wrong config.json field is a warning naming file and field; the other fields still apply", async () => {
    const file = join(env.home, "config.json");
    writeFileSync(file, JSON.stringify({ provider: "openai", model: 5, auto_compact: "soon" }));
    env.server.enqueue({ type: "text", text: "from openai" });
    const result = await env.run(["-p", "hi", "--base-url", env.server.openaiBaseUrl, "--api-key", "k"]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`zot: warning: ${file}: field "model": expected a string; ignored`);
    expect(result.stderr).toContain(`zot: warning: ${file}: field "auto_compact": expected a number between 0.05 and 1, or false; ignored`);
    expect(env.server.requests[0]?.dialect).toBe("openai-chat");
    expect((env.server.requests[0]?.body as { model?: string }).model).toBe("gpt-5");
  });

  test("a non-integer maxTokens in models.json is a warning naming file and field; the default is used", async () => {
    const file = join(env.home, "models.json");
    writeFileSync(
      file,
      JSON.stringify({
        providers: {
          anthropic: { models: [{ id: "claude-sonnet-4-5", maxTokens: 1.5, priceInput: 2 }, { id: "mine", contextWindow: "big", maxTokens: 777 }] },
        },
      }),
    );
    env.server.enqueue({ type: "text", text: "ok" }, { type: "text", text: "ok" });
    const result = await env.run(["-p", "hi", ...env.providerArgs()]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(
      `zot: warning: ${file}: field "providers.anthropic.models.0.maxTokens": expected a whole number of tokens, got 1.5; ignored`,
    );
    expect(result.stderr).toContain(`zot: warning: ${file}: field "providers.anthropic.models.1.contextWindow": expected a whole number of tokens, got "big"; ignored`);
    expect((env.server.requests[0]?.body as { max_tokens?: number }).max_tokens).toBe(64_000);

    // The valid fields of both entries still apply.
    const listed = await env.run(["--list-models"]);
    expect(listed.stdout).toMatch(/anthropic +mine +32768 +777 /);
    const second = await env.run(["-p", "hi", ...env.providerArgs(), "--model", "mine"]);
    expect(second.code).toBe(0);
    expect((env.server.requests[1]?.body as { max_tokens?: number }).max_tokens).toBe(777);
  });
});
