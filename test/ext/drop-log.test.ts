/** Rate-limited notes and the dropped-frame account. */
import { describe, expect, test } from "bun:test";
import { DroppedFrames, RECENT_DROPS_KEPT, RateLimitedNotes, oneLine } from "../../src/ext/drop-log.ts";

describe("RateLimitedNotes", () => {
  test("the first burst of a window is written, the rest summarised once the window ends", async () => {
    const lines: string[] = [];
    const notes = new RateLimitedNotes((line) => lines.push(line), "dropped frames", { burst: 3, windowMs: 1_000 }); // a window far longer than the loop, even on a loaded machine
    for (let i = 0; i < 100_000; i++) notes.note(`drop ${i}`);
    expect(lines).toEqual(["drop 0", "drop 1", "drop 2"]);
    const until = Date.now() + 5_000;
    while (lines.length < 4 && Date.now() < until) await Bun.sleep(10);
    expect(lines[3]).toBe("… 99,997 more dropped frames not logged in the last second");
    notes.note("later");
    expect(lines.at(-1)).toBe("later");
  });

  test("finish() writes a pending summary at once, and nothing when nothing was held back", () => {
    const lines: string[] = [];
    const notes = new RateLimitedNotes((line) => lines.push(line), "refused registrations", { burst: 1 });
    notes.finish();
    expect(lines).toEqual([]);
    notes.note("a");
    notes.note("b");
    notes.note("c");
    notes.finish();
    expect(lines).toEqual(["a", "… 2 more refused registrations not logged in the last second"]);
  });
});

describe("DroppedFrames", () => {
  test("counts every drop and keeps the last reasons, one line each and clipped", () => {
    const lines: string[] = [];
    const drops = new DroppedFrames(new RateLimitedNotes((line) => lines.push(line), "dropped frames", { burst: 2 }));
    drops.record(`unknown frame type "${"x".repeat(10_000)}" dropped`);
    drops.record('unknown frame type "a\nfake [zot] line" dropped');
    for (let i = 0; i < 10; i++) drops.record(`reason ${i}`);
    expect(drops.total).toBe(12);
    expect(drops.recent).toEqual(Array.from({ length: RECENT_DROPS_KEPT }, (_, i) => `reason ${i + 10 - RECENT_DROPS_KEPT}`));
    expect(lines[0]!.length).toBeLessThanOrEqual(301);
    expect(lines[0]!.endsWith("…")).toBe(true);
    expect(lines[1]).toBe('unknown frame type "a\\u000afake [zot] line" dropped');
    drops.finish();
  });

  test("oneLine keeps short printable text as is", () => {
    expect(oneLine("plain text")).toBe("plain text");
    expect(oneLine("abcdef", 3)).toBe("abc…");
  });
});
