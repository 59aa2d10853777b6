import { describe, expect, test } from "bun:test";
import { parseSse, SseParser, type SseEvent } from "../../src/providers/sse.ts";
import { ProviderError } from "../../src/providers/types.ts";
import { rejection } from "./helpers.ts";
import { seededRandom } from "../support/random.ts";

function streamOf(chunks: readonly Uint8Array[]): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = chunks[i++];
      if (chunk) controller.enqueue(chunk);
      else controller.close();
    },
  });
}

async function collect(chunks: readonly Uint8Array[], maxLineChars?: number, maxEventChars?: number): Promise<SseEvent[]> {
  const out: SseEvent[] = [];
  const options = { ...(maxLineChars ? { maxLineChars } : {}), ...(maxEventChars ? { maxEventChars } : {}), label: "test" };
  for await (const event of parseSse(streamOf(chunks), options)) out.push(event);
  return out;
}

const bytes = (text: string) => new TextEncoder().encode(text);


describe("parseSse", () => {
  test("fields, comments, multi-line data, leading space and default event name", async () => {
    const text = ": comment\nevent: first\ndata: a\ndata:  b\nid: 7\n\ndata:no-space\n\nevent: empty\n\n";
    expect(await collect([bytes(text)])).toEqual([
      { event: "first", data: "a\n b" },
      { event: "message", data: "no-space" },
    ]);
  });

  test("CRLF, CR and LF line ends all work, including CRLF split across chunks", async () => {
    const events = await collect([bytes("data: one\r\n\r\ndata: two\r\r"), bytes("data: three\r"), bytes("\n\r\n")]);
    expect(events).toEqual([
      { event: "message", data: "one" },
      { event: "message", data: "two" },
      { event: "message", data: "three" },
    ]);
  });

  test("an event left undispatched at the end of the stream is discarded", async () => {
    expect(await collect([bytes("data: done\n\ndata: partial\n")])).toEqual([{ event: "message", data: "done" }]);
  });

  test("a line over the cap is a malformed ProviderError, even when it arrives in pieces", async () => {
    const pieces = Array.from({ length: 20 }, () => bytes("x".repeat(100)));
    const err = await rejection(collect([bytes("data: "), ...pieces], 1000));
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).kind).toBe("malformed");
    // Just under the cap passes.
    expect(await collect([bytes(`data: ${"y".repeat(990)}\n\n`)], 1000)).toEqual([{ event: "message", data: "y".repeat(990) }]);
  });

  test("an event whose data lines together pass the event cap is too_large; up to the cap passes", async () => {
    // Three lines of 300 joined by two newlines: 902 characters.
    const event = `data: ${"a".repeat(300)}\ndata: ${"b".repeat(300)}\ndata: ${"c".repeat(300)}\n\n`;
    const err = await rejection(collect([bytes(event)], 1000, 901));
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).kind).toBe("too_large");
    expect((err as ProviderError).message).toBe("test: stream event larger than 901 characters (the per-event limit)");
    const [passed] = await collect([bytes(event)], 1000, 902);
    expect(passed?.data.length).toBe(902);
    // The cap is per event: many events under it pass.
    expect(await collect([bytes(event.repeat(5))], 1000, 902)).toHaveLength(5);
    // Comments and other fields never count.
    expect(await collect([bytes(`: ${"k".repeat(800)}\nid: ${"i".repeat(800)}\ndata: x\n\n`)], 1000, 10)).toEqual([{ event: "message", data: "x" }]);
  });

  test("thousands of data lines in one event join exactly as few do", async () => {
    const lines = Array.from({ length: 5000 }, (_, i) => (i % 7 === 0 ? "" : `line ${i}`));
    const text = `${lines.map((line) => `data: ${line}`).join("\n")}\n\n`;
    expect(await collect([bytes(text)])).toEqual([{ event: "message", data: lines.join("\n") }]);
    const exactly = Array.from({ length: 2048 }, (_, i) => String(i));
    expect(await collect([bytes(`${exactly.map((line) => `data:${line}\n`).join("")}\n`)])).toEqual([{ event: "message", data: exactly.join("\n") }]);
  });

  test("property: any chunking of the byte stream yields the same events", async () => {
    const random = seededRandom(20250101);
    const alphabet = ["a", "b", " ", ":", "é", "€", "😀", "{", "}", '"', "data", "\t"];
    const lineEnds = ["\n", "\r\n", "\r"];
    for (let round = 0; round < 60; round++) {
      const expected: SseEvent[] = [];
      let text = "";
      const eventCount = 1 + Math.floor(random() * 6);
      for (let e = 0; e < eventCount; e++) {
        // "\r" then "\n" would read as one CRLF, so never follow a bare CR with LF.
        const end = () => {
          let chosen = lineEnds[Math.floor(random() * lineEnds.length)] as string;
          if (text.endsWith("\r") && chosen === "\n") chosen = "\r\n";
          return chosen;
        };
        if (random() < 0.3) {
          text += ": a comment é";
          text += end();
        }
        const name = random() < 0.5 ? `kind${e}` : "";
        if (name) {
          text += `event: ${name}`;
          text += end();
        }
        const lines: string[] = [];
        const lineCount = 1 + Math.floor(random() * 3);
        for (let l = 0; l < lineCount; l++) {
          let value = "";
          const length = Math.floor(random() * 12);
          for (let c = 0; c < length; c++) value += alphabet[Math.floor(random() * alphabet.length)];
          lines.push(value);
          text += `data: ${value}`;
          text += end();
        }
        text += end();
        expected.push({ event: name || "message", data: lines.join("\n") });
      }
      const encoded = bytes(text);
      expect(await collect([encoded])).toEqual(expected);
      // Random cut points, including inside multi-byte characters and between \r and \n.
      const chunks: Uint8Array[] = [];
      let at = 0;
      while (at < encoded.length) {
        const size = 1 + Math.floor(random() * 7);
        chunks.push(encoded.subarray(at, at + size));
        at += size;
      }
      expect(await collect(chunks)).toEqual(expected);
      // One byte at a time.
      expect(await collect(Array.from(encoded, (byte) => Uint8Array.of(byte)))).toEqual(expected);
    }
  });

  test("SseParser (what runStream feeds chunk by chunk): the events before a broken bound, then the failure, then nothing", () => {
    const parser = new SseParser({ maxLineChars: 20, label: "test" });
    expect(parser.feed(bytes("data: one\n\ndata: tw"))).toEqual([{ event: "message", data: "one" }]);
    expect(parser.failure).toBeUndefined();
    const events = parser.feed(bytes("o\n\ndata: this line is far too long\n\ndata: three\n\n"));
    expect(events).toEqual([{ event: "message", data: "two" }]);
    expect(parser.failure).toBeInstanceOf(ProviderError);
    expect(parser.failure?.kind).toBe("malformed");
    expect(parser.failure?.message).toBe("test: stream line longer than 20 characters");
    expect(parser.feed(bytes("data: four\n\n"))).toEqual([]);
    expect(parser.feed(undefined)).toEqual([]);
  });
});
