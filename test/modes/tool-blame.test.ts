/**
 * A provider that refuses an extension's tool definition refuses every
 * request while the extension is loaded; its error names the tool only by
 * position (Anthropic: `tools.N.custom.input_schema`) or by name (OpenAI:
 * `Invalid schema for function 'x'`). Through dist/zot: the error zot
 * prints names the tool and the extension that registered it.
 */
import { expect, test } from "bun:test";
import { behaveExtension } from "../support/extensions.ts";
import { requestToolNames, useModeEnv, type ModeEnv } from "./helpers.ts";

let env: ModeEnv;
useModeEnv((created) => (env = created));

const BLAME = `(tool "py_echo" was registered by extension schemer: 'zot ext disable schemer' stops it, or fix its register_tool schema)`;

test("an error naming a tool by position or by name names the extension that registered it", async () => {
  const ext = behaveExtension(env.base, "schemer");
  env.server.enqueue({ type: "text", text: "fine" });
  const first = await env.run(["-p", "hi", "--ext", ext, ...env.providerArgs()]);
  expect(first.code).toBe(0);
  const index = requestToolNames(env.server.requests[0]).indexOf("py_echo");
  expect(index).toBeGreaterThanOrEqual(0);
  const message = `tools.${index}.custom.input_schema: JSON schema is invalid. It must match JSON Schema draft 2020-12`;
  env.server.enqueue({ type: "http_error", status: 400, errorType: "invalid_request_error", message });
  const refused = await env.run(["-p", "hi", "--ext", ext, ...env.providerArgs()]);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain(`${message} ${BLAME}`);

  env.server.enqueue({ type: "http_error", status: 400, errorType: "invalid_request_error", message: "Invalid schema for function 'py_echo': In context=(), 'type' is not valid" });
  const openai = await env.run(["-p", "hi", "--ext", ext, ...env.providerArgs("openai")]);
  expect(openai.code).toBe(1);
  expect(openai.stderr).toContain(`Invalid schema for function 'py_echo': In context=(), 'type' is not valid ${BLAME}`);

  // A built-in named by position is left as it was.
  const builtin = requestToolNames(env.server.requests[0]).indexOf("bash");
  env.server.enqueue({ type: "http_error", status: 400, errorType: "invalid_request_error", message: `tools.${builtin}.custom.input_schema: nope` });
  const plain = await env.run(["-p", "hi", "--ext", ext, ...env.providerArgs()]);
  expect(plain.stderr).toContain(`tools.${builtin}.custom.input_schema: nope`);
  expect(plain.stderr).not.toContain("was registered by extension");
});
