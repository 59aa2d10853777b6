import { describe, expect, test } from "bun:test";
import { resolveZotHome, zotPaths } from "../../src/common/home.ts";

describe("$ZOT_HOME resolution", () => {
  const home = "/home/pat";
  test("ZOT_HOME wins everywhere", () => {
    for (const platform of ["linux", "darwin", "win32"] as const) {
      expect(resolveZotHome({ env: { ZOT_HOME: "/z", XDG_STATE_HOME: "/x", LOCALAPPDATA: "C:\\L" }, platform, home })).toBe("/z");
    }
  });
  test("XDG_STATE_HOME/zot on any platform when set", () => {
    for (const platform of ["linux", "darwin", "win32"] as const) {
      expect(resolveZotHome({ env: { XDG_STATE_HOME: "/state" }, platform, home })).toBe("/state/zot");
    }
  });
  test("platform defaults", () => {
    expect(resolveZotHome({ env: {}, platform: "darwin", home })).toBe("/home/pat/Library/Application Support/zot");
    expect(resolveZotHome({ env: {}, platform: "linux", home })).toBe("/home/pat/.local/state/zot");
    expect(resolveZotHome({ env: { LOCALAPPDATA: "/appdata" }, platform: "win32", home })).toBe("/appdata/zot");
    expect(resolveZotHome({ env: {}, platform: "win32", home })).toBe("/home/pat/AppData/Local/zot");
    expect(resolveZotHome({ env: { LOCALAPPDATA: "" }, platform: "win32", home })).toBe("/home/pat/AppData/Local/zot");
  });
  test("logs/ and extensions/ live under it", () => {
    const paths = zotPaths("/z");
    expect(paths.logs).toBe("/z/logs");
    expect(paths.extensions).toBe("/z/extensions");
    expect(paths.sessions).toBe("/z/sessions");
  });
});
