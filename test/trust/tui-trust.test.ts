/**
 * The project-trust dialog on the chat screen, dist/zot in a real PTY: an
 * untrusted project's own extension waits for the dialog (name, exec,
 * language); [t] records the trust and starts it, [o] starts it without
 * recording, [n] starts nothing, records "denied" and the next start asks
 * nothing but says so; extensions start once answered, a global one
 * whatever the answer; an edit after trusting asks again, marked [changed];
 * a project ./.zot/mcp.json is listed with its server names (or
 * "unreadable" when it is not valid JSON).
 */
import { describe, expect, test } from "bun:test";
import { appendFileSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ModeEnv } from "../modes/helpers.ts";
import { TEST_MS, startChat, useChatEnv } from "../modes/tui-chat.ts";
import { markerExtension, projectMarker, starts, storedProjects, trustFile } from "./helpers.ts";

let env: ModeEnv;
useChatEnv((created) => (env = created));

const TITLE = "run this project's extensions?";

async function dialog(args: readonly string[] = []) {
  const tui = await startChat(env, { args, columns: 110, rows: 30 });
  await tui.waitForText(TITLE, "screen");
  await tui.waitForText("marker  sh main.sh  (shell)", "screen");
  return tui;
}

describe("project trust dialog", () => {
  test("[t] trusts: recorded, the extension starts; the next start asks nothing", async () => {
    const { marker } = projectMarker(env);
    const globalMarker = join(env.base, "global.started");
    markerExtension(join(env.home, "extensions"), "mine", globalMarker);
    const tui = await dialog();
    expect(tui.screen.screen().join("\n")).toContain("[t] trust (remember)  [o] this time only  [n] do not run");
    expect(tui.screen.screen().join("\n")).toContain("(global extensions and --ext paths do not depend on this answer)");
    // Extensions start after the answer.
    expect(starts(marker) + starts(globalMarker)).toBe(0);
    tui.type("t");
    await tui.waitFor(() => starts(marker) === 1 && starts(globalMarker) === 1, "both extensions to start");
    await tui.waitForText(`trusted ${env.cwd}: starting marker`);
    expect(storedProjects(env)[env.cwd]?.decision).toBe("trusted");
    await tui.stop();

    const again = await startChat(env, { columns: 110, rows: 30 });
    await again.waitFor(() => starts(marker) === 2, "the trusted extension to start without a question");
    expect(again.screen.all().join("\n")).not.toContain(TITLE);
    await again.stop();

    appendFileSync(join(env.cwd, ".zot", "extensions", "marker", "main.sh"), "# edited\n");
    const changed = await dialog();
    await changed.waitForText("changed since it was trusted on", "screen");
    await changed.waitForText("[changed]", "screen");
    expect(starts(marker)).toBe(2);
  }, TEST_MS);

  test("[o] runs it this time only: started, nothing recorded", async () => {
    const { marker } = projectMarker(env);
    const tui = await dialog();
    tui.type("o");
    await tui.waitFor(() => starts(marker) === 1, "the project extension to start");
    await tui.waitForText("starting marker for this run only (not recorded)");
    expect(existsSync(trustFile(env))).toBe(false);
  }, TEST_MS);

  test("[n] does not run it: nothing starts, denied is recorded, the next start says so without asking", async () => {
    const { marker } = projectMarker(env);
    const globalMarker = join(env.base, "global.started");
    markerExtension(join(env.home, "extensions"), "mine", globalMarker);
    const tui = await dialog();
    tui.type("n");
    await tui.waitForText("project extensions not started: marker (recorded");
    await tui.waitFor(() => starts(globalMarker) === 1, "the global extension to start");
    expect(starts(marker)).toBe(0);
    expect(storedProjects(env)[env.cwd]?.decision).toBe("denied");
    await tui.stop();

    const again = await startChat(env, { columns: 110, rows: 30 });
    await again.waitForText(/project extensions not started: marker \(denied for /);
    expect(again.screen.all().join("\n")).not.toContain(TITLE);
    expect(starts(marker)).toBe(0);
  }, TEST_MS);

  test("a prompt typed as the question appears does not answer it; a key after a moment does", async () => {
    const { marker } = projectMarker(env);
    const tui = await dialog();
    // "t" (trust, remembered) as the first letter of a prompt, the rest following at typing speed.
    for (const letter of "tell me") {
      tui.type(letter);
      await Bun.sleep(60);
    }
    await Bun.sleep(600);
    expect(tui.screen.screen().join("\n")).toContain(TITLE);
    expect(starts(marker)).toBe(0);
    expect(existsSync(trustFile(env))).toBe(false);
    await Bun.sleep(500); // past the early window: an answer now counts at once
    tui.type("o");
    await tui.waitFor(() => starts(marker) === 1, "the extension to start this time only");
    expect(existsSync(trustFile(env))).toBe(false);
  }, TEST_MS);

  test("Esc dismisses: nothing starts, nothing is recorded", async () => {
    const { marker } = projectMarker(env);
    const tui = await dialog();
    tui.press("escape");
    await tui.waitForText("project extensions not started: marker; 'zot trust' or --trust allows them");
    expect(starts(marker)).toBe(0);
    expect(existsSync(trustFile(env))).toBe(false);
  }, TEST_MS);

  test("leaving while the question is open exits at once and starts nothing", async () => {
    const { marker } = projectMarker(env);
    const tui = await dialog();
    tui.press("ctrl+c");
    tui.press("ctrl+c");
    expect(await tui.exitCode()).toBe(0);
    expect(starts(marker)).toBe(0);
    expect(existsSync(trustFile(env))).toBe(false);
    // SIGTERM too: cleanup must not wait for the unanswered question (exit 143, not the SIGKILL after the bound).
    const again = await dialog();
    again.proc.kill("SIGTERM");
    expect(await again.exitCode(4_000)).toBe(143);
    expect(starts(marker)).toBe(0);
  }, TEST_MS);

  test(".zot/mcp.json is listed with its server names; a file that is not JSON as unreadable", async () => {
    const { marker } = projectMarker(env);
    const mcpFile = join(env.cwd, ".zot", "mcp.json");
    const servers = Object.fromEntries(["github", "files", ...Array.from({ length: 11 }, (_, i) => `x${i}`)].map((name) => [name, { command: "sh", args: ["-c", "exit 1"] }]));
    writeFileSync(mcpFile, JSON.stringify({ mcpServers: servers }));
    const tui = await dialog();
    // At most 10 names, the rest counted.
    await tui.waitForText(".zot/mcp.json  MCP servers: github, files, x0, x1, x2, x3, x4, x5, x6, x7 … and 3 more", "screen");
    expect(tui.screen.screen().join("\n")).not.toContain("(-)");
    tui.press("escape");
    await tui.waitForText("project extensions and MCP servers not started: marker, ./.zot/mcp.json");
    await tui.stop();

    writeFileSync(mcpFile, '{"mcpServers": {"github": ');
    const again = await dialog();
    await again.waitForText(".zot/mcp.json  MCP servers: unreadable", "screen");
    again.press("escape");
    await again.waitForText("project extensions and MCP servers not started: marker, ./.zot/mcp.json");
    expect(starts(marker)).toBe(0);
  }, TEST_MS);

  test("--trust skips the dialog", async () => {
    const { marker } = projectMarker(env);
    const tui = await startChat(env, { args: ["--trust"], columns: 110, rows: 30 });
    await tui.waitFor(() => starts(marker) === 1, "the project extension to start");
    expect(tui.screen.all().join("\n")).not.toContain(TITLE);
  }, TEST_MS);
});
