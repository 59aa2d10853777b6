/**
 * Character widths for the @xterm/headless screen model that agree with
 * Bun.stringWidth, which zot lays out with: xterm's built-in table is
 * Unicode 6 (most emoji one cell, a ZWJ sequence one cell per person),
 * where modern terminals and Bun give emoji two cells and a ZWJ sequence,
 * a skin-tone modifier or an emoji variation selector joins the cluster
 * before it. `bunWidths()` is an xterm unicode provider ("bun") with those
 * rules: a code point's width is Bun.stringWidth of it alone; a zero-width
 * code point (combining mark, ZWJ, variation selector) joins the preceding
 * cluster; the code point after a ZWJ and a skin-tone modifier join too;
 * VS16 (U+FE0F) makes the cluster two cells wide. Regional indicators are
 * not joined: Bun measures one alone as one cell, so a flag pair is two.
 */
import type xterm from "@xterm/headless";

const ZWJ = 0x200d;
const VS16 = 0xfe0f;
const AFTER_ZWJ = 1;

// xterm's packed character property: state << 3 | width << 1 | shouldJoin.
const pack = (state: number, width: number, join: boolean): number => (state << 3) | ((width & 3) << 1) | (join ? 1 : 0);
const widthOf = (value: number): number => (value >> 1) & 3;
const stateOf = (value: number): number => value >> 3;

const cache = new Map<number, 0 | 1 | 2>();

function wcwidth(codepoint: number): 0 | 1 | 2 {
  let width = cache.get(codepoint);
  if (width === undefined) {
    const measured = Bun.stringWidth(String.fromCodePoint(codepoint));
    width = measured <= 0 ? 0 : measured >= 2 ? 2 : 1;
    cache.set(codepoint, width);
  }
  return width;
}

export function bunWidths(): xterm.IUnicodeVersionProvider {
  return {
    version: "bun",
    wcwidth,
    charProperties(codepoint: number, preceding: number): number {
      const width = wcwidth(codepoint);
      const before = widthOf(preceding);
      if (preceding === 0 || before === 0) return pack(0, width, false);
      if (codepoint === ZWJ) return pack(AFTER_ZWJ, before, true);
      if (codepoint === VS16) return pack(0, 2, true);
      if (stateOf(preceding) === AFTER_ZWJ) return pack(0, Math.max(before, width), true);
      if (codepoint >= 0x1f3fb && codepoint <= 0x1f3ff) return pack(0, Math.max(before, 2), true);
      if (width === 0) return pack(0, before, true);
      return pack(0, width, false);
    },
  };
}
