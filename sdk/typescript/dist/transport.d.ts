import { type HostFrame } from "./protocol.ts";
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
export declare class FrameTooLargeError extends Error {
    readonly frameType: string;
    readonly bytes: number;
    constructor(frameType: string, bytes: number);
}
/** A frame that JSON.stringify refuses (a BigInt, a cycle). */
export declare class FrameEncodeError extends Error {
    readonly frameType: string;
    constructor(frameType: string, cause: unknown);
}
export declare class Transport {
    private readonly input;
    private readonly output;
    private readonly log;
    private tail;
    private broken;
    private ended;
    constructor(input: ReadableLike | undefined, output: WritableLike | undefined, log: (message: string) => void);
    start(onFrame: (frame: HostFrame) => void, onEnd: () => void): void;
    /** Stops reading stdin so the process can exit once its work is done. */
    stopReading(): void;
    /** Writes one frame; resolves once the stream took it (after `drain` when its buffer was full). */
    send(frame: {
        type: string;
        [field: string]: unknown;
    }): Promise<void>;
    /** Resolves when everything sent so far has been handed to the stream. */
    flush(): Promise<void>;
    private writeLine;
}
