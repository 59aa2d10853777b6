/**
 * Every decoder of outside JSON bounds nesting (src/common/json.ts) and turns
 * a violation into its own kind of error value: extension frames, register_tool
 * schemas, provider SSE events and tool-call arguments, RPC lines, config.json,
 * models.json, auth.json and extension.json. 100,000 levels stand for "hostile".
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../src/common/config.ts";
import { MAX_JSON_DEPTH, MAX_VALUE_DEPTH } from "../../src/common/json.ts";
import { decodeInboundFrame, describeFrameProblem } from "../../src/ext/frames.ts";
import { checkToolSchema } from "../../src/ext/registration-rules.ts";
import { loadManifest } from "../../src/ext/manifest.ts";
import { parseCommandLine } from "../../src/modes/rpc/protocol.ts";
import { loadCatalog } from "../../src/providers/catalog.ts";
import { readAuthFile } from "../../src/providers/credentials.ts";
import { argumentsObject, parseEventJson } from "../../src/providers/shared.ts";
import { ProviderError } from "../../src/providers/types.ts";
import { tempDir } from "../support/binary.ts";

const HOSTILE = 100_000;
const nestedArrays = (levels: number): string => "[".repeat(levels) + "]".repeat(levels);
/** A JSON object whose `x` field makes the whole value `levels` deep. */
const objectOfDepth = (levels: number): string => `{"type":"object","x":${nestedArrays(levels - 1)}}`;

describe("extension frames", () => {
  test("a frame nested deeper than 256 levels is the too_deep problem, described clearly", () => {
    const decoded = decodeInboundFrame(`{"type":"notify","message":"x","extra":${nestedArrays(HOSTILE)}}`);
    expect(decoded).toEqual({ ok: false, problem: { kind: "too_deep", limit: MAX_JSON_DEPTH, frameType: "notify" } });
    if (!decoded.ok) expect(describeFrameProblem(decoded.problem)).toBe("notify frame dropped: JSON nested deeper than 256 levels");
    // A line whose top level names no type is still described by its depth alone.
    const untyped = decodeInboundFrame(`{"extra":${nestedArrays(HOSTILE)}}`);
    if (untyped.ok) throw new Error("expected a too_deep problem");
    expect(describeFrameProblem(untyped.problem)).toBe("frame dropped: JSON nested deeper than 256 levels");
    expect(decodeInboundFrame(`{"type":"notify","extra":${nestedArrays(MAX_JSON_DEPTH - 1)}}`).ok).toBe(true);
    expect(decodeInboundFrame(`{"type":"notify","extra":${nestedArrays(MAX_JSON_DEPTH)}}`).ok).toBe(false);
  });

  test("a register_tool schema deeper than 128 levels passes the decoder and is rejected by name at registration", () => {
    const frame = (schema: string) => `{"type":"register_tool","name":"t","schema":${schema}}`;
    const deep = decodeInboundFrame(frame(objectOfDepth(MAX_VALUE_DEPTH + 1)));
    expect(deep.ok).toBe(true);
    if (!deep.ok || deep.frame.type !== "register_tool") throw new Error("expected a register_tool frame");
    expect(checkToolSchema(deep.frame.schema)).toEqual({ ok: false, reason: "the schema nests deeper than 128 levels" });
  });

  test("embedded values other than schemas pass the decoder up to the frame limit (bounded where used)", () => {
    const decoded = decodeInboundFrame(`{"type":"call_tool","id":1,"name":"read","args":${objectOfDepth(200)}}`);
    expect(decoded.ok).toBe(true);
  });
});

describe("provider payloads", () => {
  test("an SSE event nested too deep is a malformed-stream error, not a crash", () => {
    const event = { event: "content_block_delta", data: `{"type":"ping","x":${nestedArrays(HOSTILE)}}` };
    let caught: unknown;
    try {
      parseEventJson("anthropic", event);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ProviderError);
    expect((caught as ProviderError).kind).toBe("malformed");
    expect((caught as ProviderError).message).toStartWith("anthropic: unparseable content_block_delta event: JSON nested deeper than 256 levels: ");
  });

  test("argumentsObject turns argument text deeper than 128 levels into {} so request bodies serialise", () => {
    expect(argumentsObject(`{"a":${nestedArrays(HOSTILE)}}`)).toEqual({});
    expect(argumentsObject(`{"a":${nestedArrays(MAX_VALUE_DEPTH)}}`)).toEqual({});
    expect(argumentsObject(`{"a":${nestedArrays(MAX_VALUE_DEPTH - 1)}}`)).toEqual({ a: JSON.parse(nestedArrays(MAX_VALUE_DEPTH - 1)) });
  });
});

test("rpc: a line nested too deep is a malformed-line error", () => {
  expect(parseCommandLine(`{"type":"ping","id":1,"x":${nestedArrays(HOSTILE)}}`)).toEqual({
    kind: "invalid",
    problem: "malformed",
    command: "",
    id: undefined,
    error: "malformed JSON: JSON nested deeper than 256 levels",
  });
});

describe("files", () => {
  let dir: string;
  beforeEach(() => {
    dir = tempDir("zot-json-files-");
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const deep = `{"x":${nestedArrays(HOSTILE)}}`;

  test("config.json: ignored with a warning naming the file", () => {
    const path = join(dir, "config.json");
    writeFileSync(path, deep);
    expect(loadConfig(path)).toEqual({ config: {}, warnings: [`${path}: JSON nested deeper than 256 levels; ignored`] });
  });

  test("models.json: ignored with a warning naming the file", async () => {
    const path = join(dir, "models.json");
    writeFileSync(path, deep);
    expect((await loadCatalog(path)).warnings).toEqual([`ignoring ${path}: JSON nested deeper than 256 levels`]);
  });

  test("auth.json: a config error naming the file", async () => {
    const path = join(dir, "auth.json");
    writeFileSync(path, deep);
    await expect(readAuthFile(path)).rejects.toThrow(`invalid ${path}: JSON nested deeper than 256 levels`);
  });

  test("extension.json: a manifest error naming the file", async () => {
    const extension = join(dir, "ext");
    mkdirSync(extension);
    writeFileSync(join(extension, "extension.json"), deep);
    await expect(loadManifest(extension)).rejects.toThrow(`${join(extension, "extension.json")}: is JSON nested deeper than 256 levels`);
  });
});
