/**
 * The built-in tool definitions are sent with every request, so they stay as
 * short as the original zot's (its read, write, edit and bash definitions
 * serialise to 1484 characters; ours, skill included, must not exceed that
 * plus a short skill definition). Measured on the wire, through dist/zot.
 */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { createModeEnv, type ModeEnv } from "./helpers.ts";

let env: ModeEnv;
beforeEach(() => {
  env = createModeEnv();
});
afterEach(async () => {
  await env.dispose();
});

test("built-in tool definitions on the wire are as short as the original's", async () => {
  env.server.enqueue({ type: "text", text: "ok" });
  expect((await env.run(["-p", "hi", ...env.providerArgs("anthropic")])).code).toBe(0);
  const tools = (env.server.requests[0]?.body as { tools?: { name: string; description: string }[] }).tools ?? [];
  expect(tools.map((tool) => tool.name).sort()).toEqual(["bash", "edit", "read", "skill", "write"]);
  for (const tool of tools) expect(tool.description.length).toBeLessThanOrEqual(100);
  const total = tools.reduce((sum, tool) => sum + JSON.stringify(tool).length, 0);
  expect(total).toBeLessThanOrEqual(1484 + 200);
});
