/**
 * quickAccept (src/providers/quick-accept.ts): a shortcut that must never say
 * yes where valibot says no or would change the value. Property: over
 * thousands of generated values (valid events, and the same events with
 * fields dropped, retyped, nulled, NaN'd, wrapped in arrays), whenever the
 * predicate accepts, valibot accepts too and its output equals the input; the
 * common well-formed events are accepted (the shortcut is not dead); schemas
 * it does not know (pipes, defaults, unions) never shortcut. Through the
 * clients, an event the schema refuses fails with the text valibot gave
 * before the shortcut existed (field path and message, pinned here).
 */
import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { createClient } from "../../src/providers/index.ts";
import { ProviderError } from "../../src/providers/types.ts";
import { quickAccept } from "../../src/providers/quick-accept.ts";
import { request, testModel, userText } from "./helpers.ts";
import { seededRandom } from "../support/random.ts";

const Usage = v.looseObject({ input_tokens: v.nullish(v.number()), output_tokens: v.nullish(v.number()) });
const SCHEMAS = {
  blockStart: v.looseObject({
    type: v.literal("content_block_start"),
    index: v.number(),
    content_block: v.looseObject({ type: v.string(), text: v.optional(v.string()), id: v.optional(v.string()) }),
  }),
  delta: v.looseObject({
    type: v.literal("content_block_delta"),
    index: v.number(),
    delta: v.looseObject({ type: v.string(), text: v.optional(v.string()), partial_json: v.optional(v.string()) }),
  }),
  messageDelta: v.looseObject({
    type: v.literal("message_delta"),
    delta: v.optional(v.looseObject({ stop_reason: v.nullish(v.string()) })),
    usage: v.optional(Usage),
  }),
  chunk: v.looseObject({
    choices: v.nullish(
      v.array(
        v.looseObject({
          delta: v.nullish(v.looseObject({ content: v.nullish(v.string()), flag: v.optional(v.boolean()) })),
          finish_reason: v.nullish(v.string()),
        }),
      ),
    ),
    usage: v.nullish(Usage),
  }),
};

const VALID: Record<keyof typeof SCHEMAS, unknown[]> = {
  blockStart: [
    { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
    { type: "content_block_start", index: 1, content_block: { type: "tool_use", id: "toolu_1", name: "read", input: {} } },
  ],
  delta: [
    { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "hi" } },
    { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: '{"path":' } },
  ],
  messageDelta: [
    { type: "message_delta", delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 5 } },
    { type: "message_delta", usage: { input_tokens: null } },
  ],
  chunk: [
    { id: "c", choices: [{ index: 0, delta: { content: "x", flag: true }, finish_reason: null }] },
    { choices: [], usage: { input_tokens: 3, output_tokens: 4 } },
    { choices: null },
  ],
};

const ODD_VALUES: unknown[] = [undefined, null, 0, -1, Number.NaN, "", "x", true, false, [], [1], {}, { type: "x" }];

/** A copy of `value` with one random change somewhere inside it. */
function mutate(value: unknown, random: () => number): unknown {
  const odd = () => ODD_VALUES[Math.floor(random() * ODD_VALUES.length)];
  if (value === null || typeof value !== "object") return random() < 0.5 ? odd() : value;
  if (Array.isArray(value)) {
    if (value.length === 0 || random() < 0.2) return random() < 0.5 ? [...value, odd()] : odd();
    const at = Math.floor(random() * value.length);
    return value.map((item, index) => (index === at ? mutate(item, random) : item));
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  const roll = random();
  if (roll < 0.1) return odd();
  if (roll < 0.15) return [record];
  if (keys.length === 0) return { extra: odd() };
  const key = keys[Math.floor(random() * keys.length)] as string;
  const copy = { ...record };
  if (roll < 0.35) delete copy[key];
  else copy[key] = mutate(record[key], random);
  return copy;
}

describe("quickAccept", () => {
  test("property: whatever it accepts, valibot accepts unchanged", () => {
    const random = seededRandom(10);
    let accepted = 0;
    let rejected = 0;
    for (const [name, schema] of Object.entries(SCHEMAS) as [keyof typeof SCHEMAS, v.GenericSchema][]) {
      const accept = quickAccept(schema);
      for (const valid of VALID[name]) {
        expect(accept(valid)).toBe(true);
        for (let round = 0; round < 1500; round++) {
          let value = valid;
          const changes = 1 + Math.floor(random() * 3);
          for (let c = 0; c < changes; c++) value = mutate(value, random);
          const result = v.safeParse(schema, value);
          if (accept(value)) {
            accepted++;
            expect(result.success).toBe(true);
            expect(result.output).toEqual(value as never);
          } else {
            rejected++;
          }
        }
      }
    }
    // Both sides of the shortcut were exercised.
    expect(accepted).toBeGreaterThan(500);
    expect(rejected).toBeGreaterThan(500);
  });

  test("schemas it does not know never shortcut: pipes, defaults, unions", () => {
    expect(quickAccept(v.looseObject({ a: v.pipe(v.string(), v.minLength(2)) }))({ a: "x" })).toBe(false);
    expect(quickAccept(v.looseObject({ a: v.optional(v.string(), "d") }))({})).toBe(false);
    expect(quickAccept(v.union([v.string(), v.number()]))("x")).toBe(false);
    expect(quickAccept(v.looseObject({ a: v.strictObject({}) }))({ a: {} })).toBe(false);
  });

  test("a key only on the prototype is left to valibot", () => {
    const schema = v.looseObject({ toString: v.optional(v.string()) });
    expect(quickAccept(schema)({})).toBe(false);
    expect(v.safeParse(schema, {}).success).toBe(false);
  });
});

describe("through the clients", () => {
  test("an event the schema refuses fails with valibot's own words, field included (as before the shortcut)", async () => {
    const streams: Record<string, { provider: "anthropic" | "openai"; body: string; message: string }> = {
      delta: {
        provider: "anthropic",
        body: 'event: message_start\ndata: {"type":"message_start","message":{"usage":{"input_tokens":1}}}\n\nevent: content_block_delta\ndata: {"type":"content_block_delta","index":"x","delta":{"type":"text_delta","text":"a"}}\n\n',
        message: 'anthropic: unexpected content_block_delta event (field "index"): Invalid type: Expected number but received "x"',
      },
      start: {
        provider: "anthropic",
        body: 'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":7}}\n\n',
        message: 'anthropic: unexpected content_block_start event (field "content_block.text"): Invalid type: Expected string but received 7',
      },
      chunk: {
        provider: "openai",
        body: 'data: {"choices":[{"delta":{"content":5},"finish_reason":null}]}\n\n',
        message: 'openai: unexpected message event (field "choices.0.delta.content"): Invalid type: Expected string but received 5',
      },
    };
    let current = "";
    const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response(streams[current]?.body, { headers: { "content-type": "text/event-stream" } }) });
    try {
      for (const [name, stream] of Object.entries(streams)) {
        current = name;
        const client = createClient({ provider: stream.provider, apiKey: "k", baseUrl: `http://127.0.0.1:${server.port}`, retry: { maxRetries: 0 } });
        const failure = await client.stream(request(testModel(), [userText("hi")]), () => {}).then(
          () => undefined,
          (err: unknown) => err,
        );
        expect(failure).toBeInstanceOf(ProviderError);
        expect((failure as ProviderError).kind).toBe("malformed");
        expect((failure as ProviderError).message).toBe(stream.message);
      }
    } finally {
      await server.stop(true);
    }
  });
});
