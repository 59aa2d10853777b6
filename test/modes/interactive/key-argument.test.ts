/**
 * modes/interactive/key-argument.ts: the streaming key-argument preview
 * gives, after every delta, what a full re-parse of everything received so
 * far gives (the chat screen's earlier rule, kept here as the oracle) for
 * values within PREVIEW_MAX_CHARS, however the text is split — keys and
 * escapes cut across deltas included — and stops reading a value past that.
 */
import { expect, test } from "bun:test";
import { KeyArgumentScanner, PREVIEW_MAX_CHARS } from "../../../src/modes/interactive/key-argument.ts";

/** Re-parses the whole prefix: what the tool card did per delta before the scanner. */
function fullReparse(raw: string): string | undefined {
  const match = /"(command|path|file_path|url|query|name)"\s*:\s*"((?:[^"\\]|\\.)*)/.exec(raw);
  if (match?.[2] === undefined) return undefined;
  try {
    return JSON.parse(`"${match[2].replace(/\\$/, "")}"`) as string;
  } catch {
    return match[2];
  }
}

const CALLS = [
  JSON.stringify({ command: "npm test -- --grep \"quoted \\\\ thing\"\nsecond line\t\u00e9 \u{1F389}" }),
  JSON.stringify({ timeout: 30, command: "ls -la" }),
  `{"file_path" :  "src/a.ts", "content": "x"}`,
  JSON.stringify({ content: "a \"path\": \"not this\" inside a value", path: "real/path.txt" }),
  JSON.stringify({ url: "https://example.com/?q=\\u0041" }),
  JSON.stringify({ old_string: "no key argument here", new_string: "none" }),
];

function feed(raw: string, cuts: readonly number[]): (string | undefined)[] {
  const scanner = new KeyArgumentScanner();
  const seen: (string | undefined)[] = [];
  for (const cut of cuts) seen.push(scanner.update(raw.slice(0, cut)));
  return seen;
}

test("after every delta the preview is what a full re-parse of the text so far gives", () => {
  for (const raw of CALLS) {
    const everyChar = Array.from({ length: raw.length }, (_, i) => i + 1);
    expect(feed(raw, everyChar)).toEqual(everyChar.map((cut) => fullReparse(raw.slice(0, cut))));
    for (let seed = 1; seed <= 20; seed++) {
      const cuts: number[] = [];
      for (let at = 0; at < raw.length; ) cuts.push((at = Math.min(raw.length, at + 1 + ((at * 7 + seed * 13) % 9))));
      expect(feed(raw, cuts)).toEqual(cuts.map((cut) => fullReparse(raw.slice(0, cut))));
    }
  }
});

test("a long value is read only up to PREVIEW_MAX_CHARS, and the preview is final from there", () => {
  const value = "x".repeat(PREVIEW_MAX_CHARS * 50);
  const raw = JSON.stringify({ command: value });
  const scanner = new KeyArgumentScanner();
  let preview: string | undefined;
  for (let cut = 1; cut <= raw.length; cut += 7) preview = scanner.update(raw.slice(0, cut));
  expect(preview).toBe("x".repeat(PREVIEW_MAX_CHARS));
  // Final: later text (even another key) no longer changes it.
  expect(scanner.update(`${raw.slice(0, -2)}", "path": "other"}`)).toBe("x".repeat(PREVIEW_MAX_CHARS));
});

test("no key argument: undefined, and a key that arrives late is still found", () => {
  const scanner = new KeyArgumentScanner();
  let raw = `{"content": "${"y".repeat(5000)}"`;
  expect(scanner.update(raw)).toBeUndefined();
  raw += `, "pa`;
  expect(scanner.update(raw)).toBeUndefined();
  raw += `th": "late/one.txt"}`;
  expect(scanner.update(raw)).toBe("late/one.txt");
});
