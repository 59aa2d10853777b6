import { expect, test } from "bun:test";
import { UsageError } from "../../src/common/errors.ts";
import { parseSessionChoice } from "../../src/modes/options.ts";

const none = { noSession: false, continue: false, resume: false } as const;

test("--fork <path> is a session choice of its own", () => {
  expect(parseSessionChoice({ ...none, fork: "/s/a.jsonl" })).toEqual({ kind: "fork", path: "/s/a.jsonl" });
  expect(() => parseSessionChoice({ ...none, fork: " " })).toThrow(new UsageError("--fork needs a session file path"));
  expect(() => parseSessionChoice({ ...none, fork: "/a", continue: true })).toThrow(new UsageError("--fork cannot be combined with --continue"));
  expect(() => parseSessionChoice({ ...none, fork: "/a", session: "/b" })).toThrow(new UsageError("--session cannot be combined with --fork"));
  expect(() => parseSessionChoice({ ...none, fork: "/a", noSession: true })).toThrow(new UsageError("--no-session cannot be combined with --fork"));
});
