/**
 * stdio for an extension, the same under Bun, Node ≥ 20 and Deno (all three
 * provide `node:process` streams). Reading: stdin chunks go through a
 * LineReader; each line is parsed as JSON and handed to `onFrame` in arrival
 * order; a line that is not a JSON object is logged and skipped; EOF (or a
 * stdin error) calls `onEnd` once. Writing: `send` serialises a frame to one
 * line and writes it in call order, waiting for `drain` whenever the stream
 * says its buffer is full (backpressure), so a flood of frames never grows
 * memory without bound inside the stream. A frame over the host's 4 MiB
 * line limit is refused (the promise rejects with FrameTooLargeError) instead
 * of being written, because the host would disconnect the extension; one that
 * is not serialisable rejects with FrameEncodeError. After a write error
 * (the host went away) every later send rejects.
 */
import process from "node:process";
import { LineReader } from "./line-reader.ts";
import { MAX_INBOUND_FRAME_BYTES, MAX_OUTBOUND_FRAME_BYTES, type HostFrame } from "./protocol.ts";

export interface ReadableLike {
  on(event: "data", listener: (chunk: Uint8Array | string) => void): unknown;
  on(event: "end" | "close", listener: () => void): unknown;
  on(event: "error", listener: (error: Error) => void): unknown;
  pause?(): unknown;
  destroy?(): unknown;
}
export interface WritableLike {
  write(chunk: string, callback?: (error?: Error | null) => void): boolean;
  once(event: "drain", listener: () => void): unknown;
  on(event: "error", listener: (error: Error) => void): unknown;
}

export class FrameTooLargeError extends Error {
  constructor(readonly frameType: string, readonly bytes: number) {
    super(`${frameType} frame is ${bytes} bytes, over the host's ${MAX_OUTBOUND_FRAME_BYTES}-byte line limit; not sent`);
  }
}

/** A frame that JSON.stringify refuses (a BigInt, a cycle). */
export class FrameEncodeError extends Error {
  constructor(readonly frameType: string, cause: unknown) {
    super(`${frameType} frame is not JSON-serialisable (${cause instanceof Error ? cause.message : String(cause)}); not sent`);
  }
}

const encoder = new TextEncoder();

export class Transport {
  private tail: Promise<void> = Promise.resolve();
  private broken: Error | undefined;
  private ended = false;

  constructor(
    private readonly input: ReadableLike = process.stdin,
    private readonly output: WritableLike = process.stdout,
    private readonly log: (message: string) => void,
  ) {
    output.on("error", (error) => {
      this.broken ??= error;
    });
  }

  start(onFrame: (frame: HostFrame) => void, onEnd: () => void): void {
    const end = (): void => {
      if (this.ended) return;
      this.ended = true;
      reader.finish();
      onEnd();
    };
    const reader = new LineReader(
      (line) => {
        let frame: unknown;
        try {
          frame = JSON.parse(line);
        } catch (error) {
          this.log(`host frame skipped: not JSON (${(error as Error).message})`);
          return;
        }
        if (typeof frame !== "object" || frame === null || Array.isArray(frame) || typeof (frame as HostFrame).type !== "string") {
          this.log("host frame skipped: not a JSON object with a string type");
          return;
        }
        onFrame(frame as HostFrame);
      },
      (bytes) => this.log(`host frame skipped: ${bytes} bytes, over the SDK's ${MAX_INBOUND_FRAME_BYTES}-byte line limit`),
      MAX_INBOUND_FRAME_BYTES,
    );
    this.input.on("data", (chunk) => {
      if (!this.ended) reader.push(typeof chunk === "string" ? encoder.encode(chunk) : chunk);
    });
    this.input.on("end", end);
    this.input.on("close", end);
    this.input.on("error", (error) => {
      this.log(`stdin error: ${error.message}`);
      end();
    });
  }

  /** Stops reading stdin so the process can exit once its work is done. */
  stopReading(): void {
    this.ended = true;
    this.input.pause?.();
    this.input.destroy?.();
  }

  /** Writes one frame; resolves once the stream took it (after `drain` when its buffer was full). */
  send(frame: { type: string; [field: string]: unknown }): Promise<void> {
    let line: string;
    try {
      line = JSON.stringify(frame);
    } catch (error) {
      return Promise.reject(new FrameEncodeError(frame.type, error));
    }
    const bytes = encoder.encode(line).length;
    if (bytes > MAX_OUTBOUND_FRAME_BYTES) return Promise.reject(new FrameTooLargeError(frame.type, bytes));
    const written = this.tail.then(() => this.writeLine(line + "\n"));
    this.tail = written.catch(() => {});
    return written;
  }

  /** Resolves when everything sent so far has been handed to the stream. */
  flush(): Promise<void> {
    return this.tail;
  }

  private writeLine(line: string): Promise<void> {
    if (this.broken) return Promise.reject(new Error(`stdout is closed: ${this.broken.message}`));
    return new Promise((resolve, reject) => {
      let settled = false;
      const done = (error?: Error | null): void => {
        if (settled) return;
        if (error) {
          settled = true;
          this.broken ??= error;
          reject(error);
        }
      };
      const ready = this.output.write(line, done);
      if (ready) {
        settled = true;
        resolve();
      } else {
        this.output.once("drain", () => {
          if (settled) return;
          settled = true;
          resolve();
        });
      }
    });
  }
}
