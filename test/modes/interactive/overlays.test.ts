import { describe, expect, test } from "bun:test";
import { OverlayStack } from "../../../src/modes/interactive/overlays.ts";
import type { Key, Overlay, OverlayResult } from "../../../src/tui/index.ts";

function overlay(name: string, log: string[], answer: OverlayResult): Overlay {
  return { render: () => [name], handleKey: () => (log.push(`key ${name}`), answer), onClose: () => void log.push(`closed ${name}`) };
}
const esc: Key = { kind: "key", name: "escape", ctrl: false, alt: false, shift: false };

describe("OverlayStack", () => {
  test("keys go to the top only; close runs onClose once; pass leaves the key to the caller", () => {
    const log: string[] = [];
    const stack = new OverlayStack();
    const below = overlay("below", log, "handled");
    const top = overlay("top", log, "close");
    stack.open(below);
    stack.open(top);
    expect(stack.handleKey(esc)).toBe(true);
    expect(log).toEqual(["key top", "closed top"]);
    expect(stack.top).toBe(below);
    stack.close(top);
    expect(log).toEqual(["key top", "closed top"]);
    const passing = overlay("passing", log, "pass");
    stack.open(passing);
    expect(stack.handleKey(esc)).toBe(false);
    expect(stack.has(passing)).toBe(true);
    stack.closeAll();
    expect(log.slice(-2)).toEqual(["closed passing", "closed below"]);
    expect(stack.size).toBe(0);
    expect(stack.handleKey(esc)).toBe(false);
    // close-pass: the overlay closes and the key goes on to the caller (typing into the help box).
    const help = overlay("help", log, "close-pass");
    stack.open(help);
    expect(stack.handleKey(esc)).toBe(false);
    expect(stack.has(help)).toBe(false);
    expect(log.slice(-2)).toEqual(["key help", "closed help"]);
  });
});
