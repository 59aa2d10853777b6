/**
 * The update notice (src/upgrade/update-check.ts): unit checks of the
 * mechanism against a local release server (notice for a newer release,
 * none for the same one, the 12 h cache in update-check.json, CI and
 * ZOT_NO_UPDATE_CHECK=1 making no request and no file, failures saying
 * nothing and writing nothing), then end to end through dist/zot: the chat
 * screen shows the notice, the chat screen in CI and print / JSON mode
 * never ask the release server.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CACHE_TTL_MS, updateCheckAllowed, updateNotice, type UpdateCheckRequest } from "../../src/upgrade/update-check.ts";
import { serveRelease, withServer, writeFakeRelease } from "../support/release-server.ts";
import { tempDir } from "../support/temp.ts";
import { startChat, useChatEnv, waitIdle } from "../modes/tui-chat.ts";
import type { ModeEnv } from "../modes/helpers.ts";

let env: ModeEnv;
useChatEnv((created) => {
  env = created;
});

function releaseOf(version: string): string {
  const dir = tempDir("zot-update-release-");
  writeFakeRelease(dir, version, [{ name: "zot-linux-x64", content: "#!/bin/sh\n" }]);
  return dir;
}

function request(server: { url: string }, extra: Partial<UpdateCheckRequest> = {}): UpdateCheckRequest {
  return { env: { ZOT_RELEASE_URL: server.url }, zotHome: tempDir("zot-update-home-"), currentVersion: "1.0.0", fromSource: false, ...extra };
}

describe("update check (mechanism)", () => {
  test("a newer release gives the notice and is cached for 12 h", async () => {
    await withServer(releaseOf("1.2.0"), async (server) => {
      const first = request(server, { now: Date.parse("2026-12-01T10:00:00Z") });
      expect(await updateNotice(first)).toBe("zot 1.2.0 is available (installed: 1.0.0); run zot upgrade");
      expect(JSON.parse(readFileSync(join(first.zotHome, "update-check.json"), "utf8"))).toEqual({ checked_at: "2026-12-01T10:00:00.000Z", latest: "1.2.0" });
      expect(server.requests).toEqual(["release.json"]);
      // Within the TTL: from the cache, no request.
      expect(await updateNotice({ ...first, now: Date.parse("2026-12-01T21:59:00Z") })).toContain("zot 1.2.0 is available");
      expect(server.requests).toHaveLength(1);
      // Past it: asked again.
      expect(await updateNotice({ ...first, now: Date.parse("2026-12-01T10:00:00Z") + CACHE_TTL_MS + 1 })).toContain("zot 1.2.0");
      expect(server.requests).toHaveLength(2);
    });
  });

  test("the same or an older release gives no notice", async () => {
    await withServer(releaseOf("1.0.0"), async (server) => {
      expect(await updateNotice(request(server))).toBeUndefined();
      expect(await updateNotice(request(server, { currentVersion: "1.1.0" }))).toBeUndefined();
    });
  });

  test("CI, ZOT_NO_UPDATE_CHECK=1 and a run from source make no request and no file", async () => {
    await withServer(releaseOf("1.2.0"), async (server) => {
      for (const extra of [{ CI: "true" }, { GITHUB_ACTIONS: "true" }, { ZOT_NO_UPDATE_CHECK: "1" }]) {
        const off = request(server, { env: { ZOT_RELEASE_URL: server.url, ...extra } });
        expect(await updateNotice(off)).toBeUndefined();
        expect(existsSync(join(off.zotHome, "update-check.json"))).toBe(false);
      }
      expect(await updateNotice(request(server, { fromSource: true }))).toBeUndefined();
      expect(server.requests).toEqual([]);
    });
    expect(updateCheckAllowed({ env: { CI: "false" }, fromSource: false })).toBe(true);
    expect(updateCheckAllowed({ env: { CI: "0" }, fromSource: false })).toBe(true);
  });

  test("a server that is down, a bad release.json or a corrupt cache: nothing said, nothing cached", async () => {
    const down = serveRelease(releaseOf("1.2.0"));
    const url = down.url;
    await down.stop();
    const offline = request({ url });
    expect(await updateNotice(offline)).toBeUndefined();
    expect(existsSync(join(offline.zotHome, "update-check.json"))).toBe(false);
    const bad = tempDir("zot-update-bad-");
    writeFileSync(join(bad, "release.json"), `{"version": ${"[".repeat(300)}`);
    await withServer(bad, async (server) => {
      const check = request(server);
      writeFileSync(join(check.zotHome, "update-check.json"), "{not json");
      expect(await updateNotice(check)).toBeUndefined();
      expect(readFileSync(join(check.zotHome, "update-check.json"), "utf8")).toBe("{not json");
    });
  });
});

describe("update check (dist/zot)", () => {
  test("the chat screen shows the notice once the screen is up", async () => {
    await withServer(releaseOf("9.8.7"), async (server) => {
      const tui = await startChat(env, { env: { ZOT_RELEASE_URL: server.url, ZOT_NO_UPDATE_CHECK: undefined } });
      await tui.waitForText(/zot 9\.8\.7 is available \(installed: \d+\.\d+\.\d+\); run zot upgrade/);
      expect(server.requests).toEqual(["release.json"]);
      expect(JSON.parse(readFileSync(join(env.home, "update-check.json"), "utf8"))).toMatchObject({ latest: "9.8.7" });
    });
  });

  test("the chat screen in CI, and print and JSON mode, never ask the release server", async () => {
    await withServer(releaseOf("9.8.7"), async (server) => {
      env.server.enqueue({ type: "text", text: "answer one" });
      env.server.enqueue({ type: "text", text: "answer two" });
      const print = await env.run(["-p", "hi", ...env.providerArgs()], { env: { ZOT_RELEASE_URL: server.url, ZOT_NO_UPDATE_CHECK: undefined } });
      expect(print.stdout).toContain("answer one");
      const json = await env.run(["--json", "hi", ...env.providerArgs()], { env: { ZOT_RELEASE_URL: server.url, ZOT_NO_UPDATE_CHECK: undefined } });
      expect(json.stdout).toContain("answer two");

      env.server.enqueue({ type: "text", text: "answer three" });
      const tui = await startChat(env, { env: { ZOT_RELEASE_URL: server.url, ZOT_NO_UPDATE_CHECK: undefined, CI: "true" } });
      tui.type("hello");
      tui.press("enter");
      // A whole model round trip later (the check would have started with the screen): still nothing asked.
      await tui.waitForText("answer three");
      await waitIdle(tui);
      expect(server.requests).toEqual([]);
      expect(existsSync(join(env.home, "update-check.json"))).toBe(false);
    });
  });
});
