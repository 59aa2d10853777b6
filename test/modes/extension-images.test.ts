/**
 * Image blocks in an extension tool's result, through dist/zot: the model
 * (and the session) get an image only when its bytes are a PNG, JPEG, GIF
 * or WebP image, with the media type the bytes show. A wrong or foreign
 * `mime_type` (a PNG called image/jpeg or text/html) would make the
 * provider refuse this request and every later one of the conversation;
 * bytes that are no image become a text line naming the extension.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { behaveExtension } from "../support/extensions.ts";
import { useModeEnv, type ModeEnv } from "./helpers.ts";

let env: ModeEnv;
useModeEnv((created) => (env = created));

type Json = Record<string, unknown>;

/** The content blocks of the tool_result for `id` in an Anthropic request body. */
function toolResultBlocks(body: unknown, id: string): Json[] {
  for (const message of (body as { messages: { content: unknown }[] }).messages) {
    if (!Array.isArray(message.content)) continue;
    for (const block of message.content as Json[]) {
      if (block.type === "tool_result" && block.tool_use_id === id) return block.content as Json[];
    }
  }
  throw new Error(`no tool_result for ${id}`);
}

test("image blocks: a mislabelled PNG goes on as image/png; data that is no image is a text line naming the extension", async () => {
  const ext = behaveExtension(env.base, "pics", ["image-result"]);
  env.server.enqueue(
    { type: "tool_calls", calls: [{ id: "call_img", name: "py_echo", arguments: { text: "x" } }] },
    { type: "text", text: "seen" },
  );
  const result = await env.run(["-p", "show me", "--ext", ext, ...env.providerArgs()]);
  expect(result.code).toBe(0);
  expect(result.stdout).toBe("seen\n");
  const blocks = toolResultBlocks(env.server.requests[1]!.body, "call_img");
  const media = blocks.map((block) => (block.type === "image" ? (block.source as Json).media_type : block.type));
  expect(media).toEqual(["image/png", "image/png", "text"]);
  expect(blocks[2]!.text).toBe('[invalid image block from extension pics: its data is not a PNG, JPEG, GIF or WebP image (mime_type "image/png")]');
  // The session keeps what the model got.
  const session = readFileSync(env.sessionFiles()[0]!, "utf8");
  expect(session).not.toContain('"mime_type":"text/html"');
  expect(session).not.toContain('"mime_type":"image/jpeg"');
});
