/**
 * Live output of a running `bash` command for ctx.onProgress (tool_progress
 * events), in bounded memory and at a bounded rate whatever the command
 * prints. Chunks are coalesced: the first chunk after a quiet period goes out
 * at once, later ones are batched and sent every PROGRESS_INTERVAL_MS. A
 * batch holds at most PROGRESS_BATCH_BYTES; output beyond that within one
 * interval is not shown live, and that batch ends with
 * `[… <size> not shown live …]\n`. So the live stream is complete for any
 * command printing under about 1.25 MiB/s, and never more than that for a
 * flood. The tool result and the spill file are unaffected. flush() sends
 * what is pending; call it before the result so every progress event
 * precedes it. A throwing listener is ignored.
 */
import { formatBytes } from "./shared.ts";

export const PROGRESS_INTERVAL_MS = 50;
export const PROGRESS_BATCH_BYTES = 64 * 1024;

export class ProgressForwarder {
  private readonly decoder = new TextDecoder("utf-8");
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;
  private skippedBytes = 0;
  private lastSent = Number.NEGATIVE_INFINITY;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly listener: (text: string) => void) {}

  push(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    if (this.pendingBytes + bytes.length > PROGRESS_BATCH_BYTES) {
      this.skippedBytes += bytes.length;
    } else {
      this.pending.push(bytes);
      this.pendingBytes += bytes.length;
    }
    if (this.timer !== undefined) return;
    const wait = this.lastSent + PROGRESS_INTERVAL_MS - performance.now();
    if (wait <= 0) this.flush();
    else this.timer = setTimeout(() => this.flush(), wait);
  }

  /** Sends whatever is pending now. */
  flush(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pendingBytes === 0 && this.skippedBytes === 0) return;
    let text = "";
    for (const chunk of this.pending) text += this.decoder.decode(chunk, { stream: true });
    if (this.skippedBytes > 0) {
      // What follows is not contiguous with what came before: drop any partial character.
      text += this.decoder.decode();
      text += `${text === "" || text.endsWith("\n") ? "" : "\n"}[… ${formatBytes(this.skippedBytes)} not shown live …]\n`;
    }
    this.pending = [];
    this.pendingBytes = 0;
    this.skippedBytes = 0;
    this.lastSent = performance.now();
    if (text === "") return;
    try {
      this.listener(text);
    } catch {
      // A failing progress listener must not break the command.
    }
  }
}
