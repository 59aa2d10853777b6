/**
 * MCP tool names and result mapping (src/mcp/tools.ts): provider-safe
 * names, the shared definition budget, and every content type's mapping.
 */
import { expect, test } from "bun:test";
import { DefinitionBudget, MAX_MCP_IMAGE_BYTES, MAX_RESULT_TEXT_CHARS, mapCallResult, toolDefinitions, zotToolName } from "../../src/mcp/tools.ts";

test("names: prefix + tool, unsafe characters replaced, long names shortened with a hash", () => {
  expect(zotToolName("srv__", "echo")).toBe("srv__echo");
  expect(zotToolName("my.srv__", "get file/ä")).toBe("my_srv__get_file__");
  const long = zotToolName("s__", "y".repeat(80));
  expect(long).toHaveLength(64);
  expect(long).not.toBe(zotToolName("s__", `${"y".repeat(79)}z`));
});

test("the definition budget is shared; a re-list gives the previous bytes back first", () => {
  const budget = new DefinitionBudget(400);
  const tool = { name: "t", description: "d".repeat(100), inputSchema: { type: "object" } };
  const first = toolDefinitions("a", "a__", [tool], budget);
  expect(first.definitions).toHaveLength(1);
  const second = toolDefinitions("b", "b__", [tool, { ...tool, name: "u" }], budget);
  expect(second.definitions).toHaveLength(1);
  expect(second.problems[0]).toContain('mcp server b: tool "u" skipped: its definition (');
  const relisted = toolDefinitions("a", "a__", [tool], budget, first.definitions[0]!.bytes);
  expect(relisted.definitions).toHaveLength(1);
  expect(budget.used).toBe(first.definitions[0]!.bytes + second.definitions[0]!.bytes);
});

test("results: every content type maps to text or an image; isError and structuredContent are kept", () => {
  const outcome = mapCallResult("srv", "t", {
    content: [
      { type: "text", text: "hello" },
      { type: "image", data: "AAAA", mimeType: "image/png" },
      { type: "image", data: "AAAA", mimeType: "image/svg+xml" },
      { type: "audio", data: "AAAAAAAA", mimeType: "audio/wav" },
      { type: "resource", resource: { uri: "file:///a.txt", mimeType: "text/plain", text: "inside" } },
      { type: "resource", resource: { uri: "file:///b.bin", blob: "AAAAAAAA" } },
      { type: "resource_link", uri: "file:///c", name: "c", description: "a link" },
      { type: "video" },
    ],
    structuredContent: { ignored: true },
    isError: true,
  });
  expect(outcome.isError).toBe(true);
  expect(outcome.content).toEqual([
    { type: "text", text: "hello" },
    { type: "image", mime_type: "image/png", data: "AAAA" },
    { type: "text", text: '[image from mcp server srv not shown: needs a mimeType of image/png, image/jpeg, image/gif, image/webp and base64 data (got "image/svg+xml")]' },
    { type: "text", text: "[audio (audio/wav, 6 bytes) from mcp server srv, not shown]" },
    { type: "text", text: "[resource file:///a.txt (text/plain)]\ninside" },
    { type: "text", text: "[resource file:///b.bin] 6 bytes of binary data from mcp server srv, not shown" },
    { type: "text", text: "[resource link: c file:///c a link]" },
    { type: "text", text: '[unknown content type "video" from mcp server srv]' },
  ]);
  expect(mapCallResult("srv", "t", { content: [] }).content).toEqual([{ type: "text", text: "(mcp server returned no content)" }]);
});

test("an image over 4 MiB (decoded) is not passed on, whatever the transport allowed", () => {
  const atLimit = "A".repeat(Math.ceil((MAX_MCP_IMAGE_BYTES * 4) / 3 / 4) * 4);
  const over = `${atLimit}AAAA`;
  const outcome = mapCallResult("srv", "t", { content: [{ type: "image", data: over, mimeType: "image/png" }] });
  expect(outcome.content).toEqual([
    { type: "text", text: `[image from mcp server srv not shown: ${(over.length * 3) / 4} bytes, over the ${MAX_MCP_IMAGE_BYTES}-byte limit for an image]` },
  ]);
  const fits = mapCallResult("srv", "t", { content: [{ type: "image", data: "A".repeat(1024), mimeType: "image/png" }] });
  expect(fits.content[0]?.type).toBe("image");
});

test("result text past the limit is cut with a note", () => {
  const outcome = mapCallResult("srv", "t", { content: [{ type: "text", text: "a".repeat(MAX_RESULT_TEXT_CHARS) }, { type: "text", text: "b".repeat(10) }] });
  expect(outcome.content).toHaveLength(2);
  expect(outcome.content[1]).toEqual({ type: "text", text: `[… 10 more characters of the mcp result not shown (limit ${MAX_RESULT_TEXT_CHARS}) …]` });
});
