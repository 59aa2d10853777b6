/**
 * Splits a byte stream into lines ("\n"-terminated, a trailing "\r" dropped)
 * however the bytes arrive: a line split across any number of chunks, many
 * lines in one chunk, a multi-byte character split between chunks. Each chunk
 * is scanned once (no rescanning of what is buffered), so a huge line costs
 * linear time. A line longer than `maxLineBytes` is not buffered: its bytes
 * are discarded up to the next newline and `onOversized(bytes)` is called
 * once for it. `finish()` delivers a last line that had no newline.
 */
export declare class LineReader {
    private readonly onLine;
    private readonly onOversized;
    private readonly maxLineBytes;
    private pending;
    private pendingBytes;
    private skipping;
    private skippedBytes;
    private readonly decoder;
    constructor(onLine: (line: string) => void, onOversized: (bytes: number) => void, maxLineBytes: number);
    push(chunk: Uint8Array): void;
    finish(): void;
    private take;
    private endLine;
}
