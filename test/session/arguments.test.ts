import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { argumentsForFile, argumentsFromFile } from "../../src/session/arguments.ts";
import { loadSession, parseRow, serializeRow } from "../../src/session/index.ts";
import { removeTempDirs } from "../support/temp.ts";
import { message, newWriter, tempHome } from "./helpers.ts";

afterAll(removeTempDirs);

const deepText = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;

describe("tool-call arguments in session files", () => {
  test("written as the JSON object; anything that is not an object is stored as {}", () => {
    expect(argumentsForFile('{ "path": "a.ts", "n": [1, 2] }')).toEqual({ path: "a.ts", n: [1, 2] });
    for (const text of ["", "  ", "not json", "[1,2]", "42", '"s"', "null", `{"a":${deepText(200)}}`]) {
      expect(argumentsForFile(text)).toEqual({});
    }
  });

  test("read back from either form; values nested deeper than 128 levels become {}", () => {
    expect(argumentsFromFile({ path: "a.ts" })).toEqual({ text: '{"path":"a.ts"}', replaced: false });
    expect(argumentsFromFile('{"path": "a.ts"}')).toEqual({ text: '{"path": "a.ts"}', replaced: false });
    expect(argumentsFromFile(undefined)).toEqual({ text: "{}", replaced: false });
    expect(argumentsFromFile(deepText(100_000))).toEqual({ text: "{}", replaced: true });
    expect(argumentsFromFile(JSON.parse(deepText(200)))).toEqual({ text: "{}", replaced: true });
  });

  test("rows carry object arguments and reasoning_id, the shapes the original zot writes, and read back unchanged", () => {
    const home = tempHome();
    const writer = newWriter(home);
    const assistant = message(
      "assistant",
      { type: "reasoning", id: "rs_1", summary: "why", encrypted_content: "enc" },
      { type: "tool_call", id: "c1", name: "read", arguments: '{"path":"a.ts"}', origin_extension: "ext" },
    );
    writer.appendMessage(assistant);
    writer.close();
    const row = JSON.parse(readFileSync(writer.path, "utf8").trim().split("\n")[1] ?? "");
    expect(row.message.content).toEqual([
      { type: "reasoning", reasoning_id: "rs_1", summary: "why", encrypted_content: "enc" },
      { type: "tool_call", id: "c1", name: "read", arguments: { path: "a.ts" }, origin_extension: "ext" },
    ]);
    expect(loadSession(writer.path).messages[0]).toEqual(assistant);
    // Rows of earlier versions (typed reasoning with `id`, string arguments) read the same.
    const legacy = JSON.parse(serializeRow({ type: "message", message: assistant }));
    legacy.message.content[0] = { type: "reasoning", id: "rs_1", summary: "why", encrypted_content: "enc" };
    legacy.message.content[1].arguments = '{"path":"a.ts"}';
    const parsed = parseRow(legacy);
    expect(parsed.ok && parsed.row.type === "message" ? parsed.row.message : undefined).toEqual(assistant);
  });
});
