import { describe, expect, test } from "bun:test";
import { OBSERVATION_MAX_BYTES, boundContent, utf8Prefix } from "../../src/ext/observation.ts";

describe("observation payload bounds", () => {
  test("text is cut at a UTF-8 character boundary exactly at the byte budget", () => {
    const text = "a" + "€".repeat(100_000); // 1 + 300000 bytes
    const bounded = boundContent([{ type: "text", text }]);
    expect(bounded.truncated).toBe(true);
    const out = (bounded.content[0] as { text: string }).text;
    expect(Buffer.byteLength(out)).toBeLessThanOrEqual(OBSERVATION_MAX_BYTES);
    expect(Buffer.byteLength(out)).toBeGreaterThan(OBSERVATION_MAX_BYTES - 3);
    expect(out).not.toContain("\uFFFD");
    expect(utf8Prefix("🌍🌍", 5)).toBe("🌍");
    expect(utf8Prefix("🌍🌍", 3)).toBe("");
  });

  test("content that fits is untouched and not marked truncated", () => {
    const blocks = [{ type: "text" as const, text: "ok" }, { type: "image" as const, mime_type: "image/png", data: "aGVsbG8=" }];
    expect(boundContent(blocks)).toEqual({ content: blocks, truncated: false });
  });

  test("an image that does not fit is omitted, later small blocks still fit", () => {
    const bigImage = { type: "image" as const, mime_type: "image/png", data: "A".repeat(OBSERVATION_MAX_BYTES) };
    const bounded = boundContent([{ type: "text", text: "before" }, bigImage, { type: "text", text: "after" }]);
    expect(bounded.truncated).toBe(true);
    expect(bounded.content).toEqual([{ type: "text", text: "before" }, { type: "text", text: "after" }]);
  });

  test("at most 128 blocks", () => {
    const blocks = Array.from({ length: 200 }, (_, i) => ({ type: "text" as const, text: String(i) }));
    const bounded = boundContent(blocks);
    expect(bounded.content.length).toBe(128);
    expect(bounded.truncated).toBe(true);
  });
});
