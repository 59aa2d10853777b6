import { describe, expect, test } from "bun:test";
import { UsageError } from "../../src/common/errors.ts";
import { FLAGS, mainHelp, parseMainFlags } from "../../src/cli/flags.ts";

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

  test("help lists every visible flag", () => {
    const help = mainHelp();
    for (const flag of FLAGS.filter((f) => !f.hidden)) expect(help).toContain(`--${flag.name}`);
    expect(help).not.toContain("--experimental-oauth");
  });
});
