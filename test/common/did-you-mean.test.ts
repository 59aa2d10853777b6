/** The "did you mean" matcher: edit distance with swaps, the length-relative bound, prefixes, ordering and the phrase. */
import { describe, expect, test } from "bun:test";
import { closeMatches, didYouMean, editBound, editDistance } from "../../src/common/did-you-mean.ts";

describe("editDistance", () => {
  test("insertions, deletions, substitutions and adjacent swaps cost one each", () => {
    expect(editDistance("model", "model")).toBe(0);
    expect(editDistance("modle", "model")).toBe(1); // swap
    expect(editDistance("mode", "model")).toBe(1); // insertion
    expect(editDistance("modell", "model")).toBe(1); // deletion
    expect(editDistance("morel", "model")).toBe(1); // substitution
    expect(editDistance("", "abc")).toBe(3);
    expect(editDistance("kitten", "sitting")).toBe(3);
  });

  test("stops early past the limit", () => {
    expect(editDistance("abcdefgh", "zyxwvuts", 2)).toBe(3);
    expect(editDistance("a", "abcdef", 2)).toBe(3);
  });
});

describe("closeMatches", () => {
  const flags = ["help", "version", "print", "json", "model", "provider", "list-models", "no-session", "session"];

  test("typos within the length-relative bound are found, best first", () => {
    expect(closeMatches("modle", flags)).toEqual(["model"]);
    expect(closeMatches("provder", flags)).toEqual(["provider"]);
    expect(closeMatches("list-model", flags)).toEqual(["list-models"]);
    expect(closeMatches("sesion", flags)).toEqual(["session"]);
  });

  test("the bound grows with the length: short words allow one edit, long ones three", () => {
    expect(editBound(4)).toBe(1);
    expect(editBound(8)).toBe(2);
    expect(editBound(17)).toBe(3);
    expect(closeMatches("jsno", flags)).toEqual(["json"]);
    expect(closeMatches("jzzn", flags)).toEqual([]);
    expect(closeMatches("claude-sonet-4", ["claude-sonnet-4-5", "claude-opus-4-1", "gpt-5"])).toEqual(["claude-sonnet-4-5"]);
  });

  test("prefixes match both ways; unrelated words and exact matches give nothing", () => {
    expect(closeMatches("ver", flags)).toEqual(["version"]);
    expect(closeMatches("versionx", flags)).toEqual(["version"]);
    expect(closeMatches("zebra", flags)).toEqual([]);
    expect(closeMatches("model", flags)).toEqual([]);
    expect(closeMatches("", flags)).toEqual([]);
  });

  test("case-insensitive, duplicates folded, at most `limit`", () => {
    expect(closeMatches("MODLE", flags)).toEqual(["model"]);
    expect(closeMatches("ab", ["ac", "AC", "ad", "ae", "af"], 2)).toEqual(["ac", "ad"]);
  });

  test("a one-letter word is never 'one edit' from another one-letter word", () => {
    expect(closeMatches("m", ["p", "c", "h"])).toEqual([]);
  });
});

describe("didYouMean", () => {
  test("phrases one, two or three matches and nothing for none", () => {
    expect(didYouMean("modle", ["model"], (name) => `--${name}`)).toBe(" (did you mean --model?)");
    expect(didYouMean("ab", ["ac", "ad"])).toBe(" (did you mean ac or ad?)");
    expect(didYouMean("ab", ["ac", "ad", "ae"])).toBe(" (did you mean ac, ad or ae?)");
    expect(didYouMean("zebra", ["model"])).toBe("");
  });
});
