import { describe, expect, test } from "bun:test";
import { UsageError } from "../../src/common/errors.ts";
import { FLAGS, checkModes, mainHelp, parseMainFlags } from "../../src/cli/flags.ts";

describe("top-level flags", () => {
  test("order-free flags interleave with prompt words; repeatable flags collect", () => {
    const flags = parseMainFlags(["fix", "-p", "the", "--ext", "a", "-e", "./b", "--append-system-prompt=x", "bug", "--append-system-prompt", "y"]);
    expect(flags.print).toBe(true);
    expect(flags.prompt).toBe("fix the bug");
    expect(flags.ext).toEqual(["a", "./b"]);
    expect(flags.appendSystemPrompt).toEqual(["x", "y"]);
  });

  test("aliases, grouped booleans, attached short values, -- and a lone -", () => {
    expect(parseMainFlags(["--no-extensions"]).noExt).toBe(true);
    expect(parseMainFlags(["--with-skill"]).withSkills).toBe(true);
    const grouped = parseMainFlags(["-pc", "-e./x", "-", "--", "--not-a-flag"]);
    expect([grouped.print, grouped.continue]).toEqual([true, true]);
    expect(grouped.ext).toEqual(["./x"]);
    expect(grouped.prompt).toBe("- --not-a-flag");
    expect(parseMainFlags(["--model=gpt-5", "--max-steps", "7"])).toMatchObject({ model: "gpt-5", maxSteps: "7" });
  });

  test("unknown flags, missing values and values on booleans are usage errors naming the flag", () => {
    const cases: [string[], string][] = [
      [["--frobnicate"], 'unknown flag "--frobnicate"'],
      [["-z"], 'unknown flag "-z"'],
      [["--model"], "flag --model needs a value"],
      [["-e"], "flag -e needs a value"],
      [["--print=yes"], "flag --print does not take a value"],
      [["--model", "-p"], 'flag --model needs a value, but the next argument "-p" is a flag (for a value that starts with "-", write --model=-p)'],
      [["-e", "--json"], 'flag -e needs a value, but the next argument "--json" is a flag (for a value that starts with "-", write --ext=--json)'],
      [["-pe", "-c"], 'flag -e needs a value, but the next argument "-c" is a flag (for a value that starts with "-", write --ext=-c)'],
    ];
    for (const [argv, message] of cases) {
      let error: unknown;
      try {
        parseMainFlags(argv);
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(UsageError);
      expect((error as UsageError).message).toBe(message);
    }
  });

  test("values that start with a dash are given with =, or attached to a short flag; a lone - is a value", () => {
    expect(parseMainFlags(["--model=-x", "-e-y", "--cwd", "-"])).toMatchObject({ model: "-x", ext: ["-y"], cwd: "-" });
  });

  test("at most one mode: -p, --json, --rpc", () => {
    const modeError = (argv: string[]): string | undefined => {
      try {
        checkModes(parseMainFlags(argv));
        return undefined;
      } catch (err) {
        expect(err).toBeInstanceOf(UsageError);
        return (err as UsageError).message;
      }
    };
    expect(modeError(["-p", "--json"])).toBe("-p/--print and --json cannot be combined: they choose different modes");
    expect(modeError(["--rpc", "--json"])).toBe("--json and rpc/--rpc cannot be combined: they choose different modes");
    expect(modeError(["-p", "-p"])).toBeUndefined();
    expect(modeError(["--json", "--list-models"])).toBeUndefined();
  });

  test("help lists every visible flag", () => {
    const help = mainHelp();
    for (const flag of FLAGS.filter((f) => !f.hidden)) expect(help).toContain(`--${flag.name}`);
    expect(help).not.toContain("--experimental-oauth");
  });
});
