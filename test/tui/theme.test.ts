/**
 * The Theme's colour slots (src/tui/theme.ts), theme.json validation
 * (src/themes/schema.ts) against the published JSON Schema
 * (schemas/theme.schema.json), and the startup choice helpers
 * (src/themes/choose.ts).
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { colourCode, createTheme, DARK_PALETTE, LIGHT_PALETTE, nearest256, PALETTE_SLOTS, SwitchableTheme } from "../../src/tui/index.ts";
import { isLightBackground, parseBackground, parseThemeFile, themeRequest } from "../../src/themes/index.ts";
import { validates } from "./json-schema-subset.ts";

const SCHEMA = JSON.parse(readFileSync(join(import.meta.dir, "../../schemas/theme.schema.json"), "utf8")) as Record<string, unknown>;
const STYLES = ["dim", "bold", "italic", "accent", "muted", "error", "warning", "success", "inverse", "foreground", "userMessage", "assistant", "tool", "toolOutput", "spinner", "selection"] as const;

describe("Theme", () => {
  test("without colours every style is the identity", () => {
    const plain = createTheme(false);
    for (const name of STYLES) expect(plain[name]("text")).toBe("text");
    expect(plain.colors).toBe(false);
  });

  test("the built-in dark theme keeps the classic 16-colour codes", () => {
    const dark = createTheme(true);
    expect(dark.accent("a")).toBe("\x1b[36ma\x1b[39m");
    expect(dark.muted("a")).toBe("\x1b[90ma\x1b[39m");
    expect(dark.error("a")).toBe("\x1b[31ma\x1b[39m");
    expect(dark.warning("a")).toBe("\x1b[33ma\x1b[39m");
    expect(dark.success("a")).toBe("\x1b[32ma\x1b[39m");
    expect(dark.selection("a")).toBe("\x1b[7ma\x1b[27m");
    expect(dark.userMessage("a")).toBe("\x1b[48;5;236ma\x1b[49m");
    expect(createTheme(true, DARK_PALETTE)).toBe(dark);
  });

  test("a nested style's end re-opens the outer colour", () => {
    const dark = createTheme(true);
    expect(dark.accent(`a${dark.muted("b")}c`)).toBe("\x1b[36ma\x1b[90mb\x1b[39m\x1b[36mc\x1b[39m");
    expect(dark.userMessage(`x${dark.accent("y")}z`)).toBe("\x1b[48;5;236mx\x1b[36my\x1b[39mz\x1b[49m");
  });

  test("colours: 0-7 and 8-15 as classic codes, 16-255 as 256-colour, #rrggbb as 24-bit or the nearest 256-colour", () => {
    expect(colourCode(1, 3)).toBe("31");
    expect(colourCode(9, 3)).toBe("91");
    expect(colourCode(9, 4)).toBe("101");
    expect(colourCode(200, 4)).toBe("48;5;200");
    expect(colourCode("#268bd2", 3)).toBe("38;2;38;139;210");
    expect(colourCode("#268bd2", 3, false)).toBe(`38;5;${nearest256(38, 139, 210)}`);
    expect(nearest256(255, 0, 0)).toBe(196);
    expect(nearest256(128, 128, 128)).toBe(244);
    expect(colourCode(256, 3)).toBe("");
  });

  test("the light theme differs from the dark one in every slot it sets", () => {
    const light = createTheme(true, LIGHT_PALETTE);
    expect(light.name).toBe("light");
    expect(light.muted("a")).toBe("\x1b[38;5;243ma\x1b[39m");
    expect(light.selection("a")).toBe("\x1b[48;5;153m\x1b[38;5;232ma\x1b[39m\x1b[49m");
  });

  test("SwitchableTheme follows use() from the next call on", () => {
    const theme = new SwitchableTheme(createTheme(true));
    const muted = theme.muted;
    expect(muted("a")).toBe("\x1b[90ma\x1b[39m");
    theme.use(createTheme(false));
    expect(muted("a")).toBe("a");
    expect(theme.colors).toBe(false);
  });
});

const EXAMPLES: { readonly json: unknown; readonly valid: boolean }[] = [
  { json: { colors: {} }, valid: true },
  { json: { name: "solarized", appearance: "light", description: "x", $schema: "../schemas/theme.schema.json", colors: { accent: "#268bd2", muted: 244, selection_bg: 0 } }, valid: true },
  { json: { colors: Object.fromEntries(PALETTE_SLOTS.map((slot, i) => [slot, i * 10])) }, valid: true },
  { json: { colors: { accent: 256 } }, valid: false },
  { json: { colors: { accent: -1 } }, valid: false },
  { json: { colors: { accent: 1.5 } }, valid: false },
  { json: { colors: { accent: "#12345" } }, valid: false },
  { json: { colors: { accent: "red" } }, valid: false },
  { json: { colors: { acent: 1 } }, valid: false },
  { json: { colors: { accent: null } }, valid: false },
  { json: { name: "" , colors: {} }, valid: false },
  { json: { name: "-x", colors: {} }, valid: false },
  { json: { appearance: "dim", colors: {} }, valid: false },
  { json: { $schema: 1, colors: {} }, valid: false },
  { json: {}, valid: false },
  { json: [], valid: false },
  { json: { colors: [] }, valid: false },
];

describe("theme.json", () => {
  test("the JSON Schema and the validator agree on every example", () => {
    for (const example of EXAMPLES) {
      const parsed = parseThemeFile("/x/theme.json", JSON.stringify(example.json), "ext");
      expect({ json: example.json, validator: parsed.ok }).toEqual({ json: example.json, validator: example.valid });
      expect({ json: example.json, schema: validates(SCHEMA, example.json) }).toEqual({ json: example.json, schema: example.valid });
    }
  });

  test("the schema lists exactly the Theme's slots", () => {
    const colors = (SCHEMA.properties as Record<string, { properties: Record<string, unknown> }>).colors;
    expect(Object.keys(colors?.properties ?? {}).sort()).toEqual([...PALETTE_SLOTS].sort());
  });

  test("errors name the file and the slot", () => {
    const bad = parseThemeFile("/x/theme.json", '{"colors":{"accent":300}}', "ext");
    expect(bad).toEqual({ ok: false, error: '/x/theme.json: colors.accent: expected an xterm-256 index (0-255) or "#rrggbb", got 300' });
    const unknown = parseThemeFile("/x/theme.json", '{"colors":{"acent":3}}', "ext");
    expect(unknown.ok ? "" : unknown.error).toStartWith("/x/theme.json: colors.acent: unknown colour slot (known: foreground, muted");
    const missing = parseThemeFile("/x/theme.json", '{"name":"x"}', "ext");
    expect(missing.ok ? "" : missing.error).toBe("/x/theme.json: colors: is required");
    const syntax = parseThemeFile("/x/theme.json", "{", "ext");
    expect(syntax.ok ? "" : syntax.error).toStartWith("/x/theme.json: not valid JSON");
    const deep = parseThemeFile("/x/theme.json", `${"[".repeat(300)}${"]".repeat(300)}`, "ext");
    expect(deep.ok ? "" : deep.error).toBe("/x/theme.json: JSON nested deeper than 256 levels");
    const big = parseThemeFile("/x/theme.json", `{"colors":{},"description":"${"x".repeat(70_000)}"}`, "ext");
    expect(big.ok ? "" : big.error).toBe("/x/theme.json: larger than 65536 bytes; ignored");
  });

  test("slots not given come from the built-in of its appearance; the name defaults to the extension's", () => {
    const parsed = parseThemeFile("/x/theme.json", '{"appearance":"light","colors":{"accent":"#ff0000"}}', "mine");
    if (!parsed.ok) throw new Error(parsed.error);
    expect(parsed.palette.name).toBe("mine");
    expect(parsed.palette.colors.accent).toBe("#ff0000");
    expect(parsed.palette.colors.muted).toBe(LIGHT_PALETTE.colors.muted);
  });
});

describe("choosing the theme", () => {
  test("ZOT_THEME wins over config.json, which wins over auto", () => {
    expect(themeRequest({ ZOT_THEME: "light" }, "dark")).toEqual({ name: "light", source: "ZOT_THEME" });
    expect(themeRequest({}, "dark")).toEqual({ name: "dark", source: "config.json" });
    expect(themeRequest({ ZOT_THEME: "" }, 7)).toEqual({ name: "auto", source: "default" });
  });

  test("OSC 11 answers: rgb with 1-4 hex digits per channel and #rrggbb; light above half brightness", () => {
    expect(parseBackground("rgb:ffff/ffff/ffff")).toEqual({ r: 1, g: 1, b: 1 });
    expect(parseBackground("rgb:0/0/0")).toEqual({ r: 0, g: 0, b: 0 });
    expect(isLightBackground(parseBackground("rgb:fdfd/f6f6/e3e3")!)).toBe(true);
    expect(isLightBackground(parseBackground("rgb:00/2b/36")!)).toBe(false);
    expect(isLightBackground(parseBackground("#1e1e1e")!)).toBe(false);
    expect(parseBackground("nonsense")).toBeUndefined();
  });
});
