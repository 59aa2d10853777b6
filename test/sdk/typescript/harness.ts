/**
 * An in-memory host for unit tests of the TypeScript SDK: the Extension gets
 * PassThrough streams instead of stdio; the test writes host frames
 * (`send`, or raw bytes with `write`) and waits for the extension's frames
 * (`next(type)`, which fails after a bound naming what it waited for).
 */
import { PassThrough, Writable } from "node:stream";
import { Extension, type ExtensionOptions } from "../../../sdk/typescript/src/index.ts";

export type Frame = Record<string, unknown> & { type: string };

export interface Harness {
  readonly ext: Extension;
  readonly frames: Frame[];
  readonly logs: string[];
  readonly done: Promise<void>;
  send(frame: Frame): void;
  write(bytes: string | Uint8Array): void;
  end(): void;
  next(type: string, where?: (frame: Frame) => boolean, timeoutMs?: number): Promise<Frame>;
  /** Runs the handshake (hello_ack) and waits for ready. */
  handshake(capabilities?: string[]): Promise<void>;
}

export function harness(setup: (ext: Extension) => void, options: ExtensionOptions & { output?: Writable } = {}): Harness {
  const input = new PassThrough();
  const frames: Frame[] = [];
  const logs: string[] = [];
  let buffered = "";
  const output =
    options.output ??
    new Writable({
      write(chunk: Buffer, _encoding, callback) {
        buffered += chunk.toString("utf8");
        let newline: number;
        while ((newline = buffered.indexOf("\n")) !== -1) {
          frames.push(JSON.parse(buffered.slice(0, newline)) as Frame);
          buffered = buffered.slice(newline + 1);
        }
        callback();
      },
    });
  const ext = new Extension("unit", "1.0.0", { ...options, input, output, log: (line) => logs.push(line) });
  setup(ext);
  const done = ext.run();
  let seen = 0;
  const h: Harness = {
    ext,
    frames,
    logs,
    done,
    send: (frame) => input.write(JSON.stringify(frame) + "\n"),
    write: (bytes) => input.write(bytes),
    end: () => input.end(),
    async next(type, where = () => true, timeoutMs = 5_000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const index = frames.findIndex((frame, i) => i >= seen && frame.type === type && where(frame));
        if (index !== -1) {
          seen = index + 1;
          return frames[index]!;
        }
        if (Date.now() > until) throw new Error(`no ${type} frame within ${timeoutMs} ms; got ${JSON.stringify(frames.slice(seen))}`);
        await Bun.sleep(2);
      }
    },
    async handshake(capabilities = ["call_tool", "tool_cancel"]) {
      await h.next("hello");
      h.send({ type: "hello_ack", protocol_version: 1, zot_version: "test", provider: "p", model: "m", cwd: "/project", extension_dir: "/ext", data_dir: "/ext", capabilities });
      await h.next("ready");
    },
  };
  return h;
}
