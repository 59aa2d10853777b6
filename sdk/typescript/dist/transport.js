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
import { LineReader } from "./line-reader.js";
import { MAX_INBOUND_FRAME_BYTES, MAX_OUTBOUND_FRAME_BYTES } from "./protocol.js";
export class FrameTooLargeError extends Error {
    frameType;
    bytes;
    constructor(frameType, bytes) {
        super(`${frameType} frame is ${bytes} bytes, over the host's ${MAX_OUTBOUND_FRAME_BYTES}-byte line limit; not sent`);
        this.frameType = frameType;
        this.bytes = bytes;
    }
}
/** A frame that JSON.stringify refuses (a BigInt, a cycle). */
export class FrameEncodeError extends Error {
    frameType;
    constructor(frameType, cause) {
        super(`${frameType} frame is not JSON-serialisable (${cause instanceof Error ? cause.message : String(cause)}); not sent`);
        this.frameType = frameType;
    }
}
const encoder = new TextEncoder();
export class Transport {
    input;
    output;
    log;
    tail = Promise.resolve();
    broken;
    ended = false;
    constructor(input = process.stdin, output = process.stdout, log) {
        this.input = input;
        this.output = output;
        this.log = log;
        output.on("error", (error) => {
            this.broken ??= error;
        });
    }
    start(onFrame, onEnd) {
        const end = () => {
            if (this.ended)
                return;
            this.ended = true;
            reader.finish();
            onEnd();
        };
        const reader = new LineReader((line) => {
            let frame;
            try {
                frame = JSON.parse(line);
            }
            catch (error) {
                this.log(`host frame skipped: not JSON (${error.message})`);
                return;
            }
            if (typeof frame !== "object" || frame === null || Array.isArray(frame) || typeof frame.type !== "string") {
                this.log("host frame skipped: not a JSON object with a string type");
                return;
            }
            onFrame(frame);
        }, (bytes) => this.log(`host frame skipped: ${bytes} bytes, over the SDK's ${MAX_INBOUND_FRAME_BYTES}-byte line limit`), MAX_INBOUND_FRAME_BYTES);
        this.input.on("data", (chunk) => {
            if (!this.ended)
                reader.push(typeof chunk === "string" ? encoder.encode(chunk) : chunk);
        });
        this.input.on("end", end);
        this.input.on("close", end);
        this.input.on("error", (error) => {
            this.log(`stdin error: ${error.message}`);
            end();
        });
    }
    /** Stops reading stdin so the process can exit once its work is done. */
    stopReading() {
        this.ended = true;
        this.input.pause?.();
        this.input.destroy?.();
    }
    /** Writes one frame; resolves once the stream took it (after `drain` when its buffer was full). */
    send(frame) {
        let line;
        try {
            line = JSON.stringify(frame);
        }
        catch (error) {
            return Promise.reject(new FrameEncodeError(frame.type, error));
        }
        const bytes = encoder.encode(line).length;
        if (bytes > MAX_OUTBOUND_FRAME_BYTES)
            return Promise.reject(new FrameTooLargeError(frame.type, bytes));
        const written = this.tail.then(() => this.writeLine(line + "\n"));
        this.tail = written.catch(() => { });
        return written;
    }
    /** Resolves when everything sent so far has been handed to the stream. */
    flush() {
        return this.tail;
    }
    writeLine(line) {
        if (this.broken)
            return Promise.reject(new Error(`stdout is closed: ${this.broken.message}`));
        return new Promise((resolve, reject) => {
            let settled = false;
            const done = (error) => {
                if (settled)
                    return;
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
            }
            else {
                this.output.once("drain", () => {
                    if (settled)
                        return;
                    settled = true;
                    resolve();
                });
            }
        });
    }
}
