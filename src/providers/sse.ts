/**
 * Server-sent events parser over a byte stream. Yields one {event, data} per
 * dispatched event: `event:` names it (default "message"), `data:` lines are
 * joined with "\n", `:` lines are comments, a blank line dispatches, one
 * leading space after the colon is stripped, and CRLF, CR and LF all end a
 * line. Bounds (docs/providers.md "Stream limits"): a line longer than 10 Mi
 * characters raises ProviderError "malformed"; an event whose data (its data
 * lines joined) exceeds 16 Mi characters raises ProviderError "too_large",
 * before it is assembled. Comment lines and other fields are read and
 * dropped, so they never accumulate. Errors of the underlying stream
 * propagate unchanged; an event left undispatched when the stream ends is
 * discarded, as the SSE standard says. SseParser is the same parser fed
 * chunk by chunk (events of a chunk returned together; a broken bound
 * reported after the events before it). `midEvent` says whether part of
 * an event has arrived (for a stall's message).
 */
import { ProviderError } from "./types.ts";

export interface SseEvent {
  readonly event: string;
  readonly data: string;
}

export const SSE_MAX_LINE_CHARS = 10 * 1024 * 1024;
export const SSE_MAX_EVENT_CHARS = 16 * 1024 * 1024;

export interface SseOptions {
  /** Longest accepted line, in characters. */
  readonly maxLineChars?: number;
  /** Largest accepted event data (data lines joined by "\n"), in characters. */
  readonly maxEventChars?: number;
  /** Prefix of error messages ("anthropic"). */
  readonly label?: string;
}

/** Data lines joined into one piece per this many, so a flood of short lines costs no more than its characters. */
const LINES_PER_PIECE = 1024;

/** "16 Mi characters", "1000 characters". */
export function charsText(count: number): string {
  const mi = 1024 * 1024;
  return count % mi === 0 ? `${count / mi} Mi characters` : `${count} characters`;
}

/** Accumulates fields of the event being read and yields it on a blank line. */
class EventBuilder {
  private eventName = "";
  /** Joined groups of LINES_PER_PIECE data lines, then the lines of the group being filled. */
  private dataPieces: string[] = [];
  private dataLines: string[] = [];
  private dataChars = 0;
  private hasData = false;

  constructor(
    private readonly maxEventChars: number,
    private readonly prefix: string,
  ) {}

  /** Feeds one line; returns the event when the line dispatches one. */
  line(line: string): SseEvent | undefined {
    if (line === "") return this.dispatch();
    if (line.startsWith(":")) return undefined;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") this.eventName = value;
    else if (field === "data") {
      this.dataChars += value.length + (this.hasData ? 1 : 0);
      if (this.dataChars > this.maxEventChars) {
        throw new ProviderError("too_large", `${this.prefix}stream event larger than ${charsText(this.maxEventChars)} (the per-event limit)`);
      }
      this.dataLines.push(value);
      this.hasData = true;
      if (this.dataLines.length >= LINES_PER_PIECE) {
        this.dataPieces.push(this.dataLines.join("\n"));
        this.dataLines = [];
      }
    }
    // id, retry and unknown fields carry nothing the providers use.
    return undefined;
  }

  /** Fields of an event are waiting for the blank line that dispatches it. */
  get started(): boolean {
    return this.hasData || this.eventName !== "";
  }

  private dispatch(): SseEvent | undefined {
    const ready = this.hasData ? { event: this.eventName || "message", data: this.data() } : undefined;
    this.eventName = "";
    this.dataPieces = [];
    this.dataLines = [];
    this.dataChars = 0;
    this.hasData = false;
    return ready;
  }

  private data(): string {
    if (this.dataPieces.length === 0) return this.dataLines.join("\n");
    return (this.dataLines.length === 0 ? this.dataPieces : [...this.dataPieces, ...this.dataLines]).join("\n");
  }
}

/**
 * The parser behind parseSse, fed one chunk at a time: runStream uses it
 * directly, so the events of a chunk cost no asynchronous step each.
 */
export class SseParser {
  private readonly maxLine: number;
  private readonly prefix: string;
  private readonly decoder = new TextDecoder("utf-8");
  private readonly builder: EventBuilder;
  // Pieces of the current, not yet terminated line (kept apart to stay linear).
  private pending: string[] = [];
  private pendingLength = 0;
  // A chunk ended in "\r": a "\n" opening the next chunk belongs to that line end.
  private skipLeadingLf = false;
  /** The bound a fed chunk broke; set, nothing more is parsed. */
  failure: ProviderError | undefined;

  constructor(options: SseOptions = {}) {
    this.maxLine = options.maxLineChars ?? SSE_MAX_LINE_CHARS;
    this.prefix = options.label ? `${options.label}: ` : "";
    this.builder = new EventBuilder(options.maxEventChars ?? SSE_MAX_EVENT_CHARS, this.prefix);
  }

  /**
   * The events `chunk` completes, in order (undefined: the stream ended). A
   * bound broken part-way stops there: the events before it are returned
   * and `failure` holds the error, for the caller to raise once it has
   * handled them (as a consumer of parseSse sees them: events, then the error).
   */
  feed(chunk: Uint8Array | undefined): SseEvent[] {
    const events: SseEvent[] = [];
    if (this.failure !== undefined) return events;
    try {
      this.scan(chunk === undefined ? this.decoder.decode() : this.decoder.decode(chunk, { stream: true }), events);
    } catch (err) {
      if (!(err instanceof ProviderError)) throw err;
      this.failure = err;
    }
    return events;
  }

  /** Part of an event has arrived: a line without its end, or fields without the blank line (comments do not count). */
  midEvent(): boolean {
    return this.pendingLength > 0 || this.builder.started;
  }

  private overLimit(): ProviderError {
    return new ProviderError("malformed", `${this.prefix}stream line longer than ${charsText(this.maxLine)}`);
  }

  private scan(decoded: string, events: SseEvent[]): void {
    let text = decoded;
    const maxLine = this.maxLine;
    if (this.skipLeadingLf && text.length > 0) {
      if (text.charCodeAt(0) === 10) text = text.slice(1);
      this.skipLeadingLf = false;
    }
    let start = 0;
    // Line ends are found with indexOf (native), not a character loop: the next LF and the next CR.
    let nextLf = text.indexOf("\n");
    let nextCr = text.indexOf("\r");
    while (nextLf !== -1 || nextCr !== -1) {
      const isCr = nextCr !== -1 && (nextLf === -1 || nextCr < nextLf);
      let i = isCr ? nextCr : nextLf;
      const tail = text.slice(start, i);
      if (this.pendingLength + tail.length > maxLine) throw this.overLimit();
      const line = this.pending.length === 0 ? tail : this.pending.join("") + tail;
      this.pending = [];
      this.pendingLength = 0;
      if (isCr) {
        if (i + 1 < text.length) {
          if (text.charCodeAt(i + 1) === 10) i++;
        } else {
          this.skipLeadingLf = true;
        }
      }
      start = i + 1;
      if (nextLf !== -1 && nextLf < start) nextLf = text.indexOf("\n", start);
      if (nextCr !== -1 && nextCr < start) nextCr = text.indexOf("\r", start);
      const event = this.builder.line(line);
      if (event) events.push(event);
    }
    if (start < text.length) {
      const rest = text.slice(start);
      this.pendingLength += rest.length;
      if (this.pendingLength > maxLine) throw this.overLimit();
      this.pending.push(rest);
    }
  }
}

export async function* parseSse(
  stream: ReadableStream<Uint8Array>,
  options: SseOptions = {},
): AsyncGenerator<SseEvent, void, undefined> {
  const parser = new SseParser(options);
  const reader = stream.getReader();
  try {
    while (true) {
      const { done, value } = await reader.read();
      for (const event of parser.feed(done ? undefined : value)) yield event;
      if (parser.failure !== undefined) throw parser.failure;
      if (done) return;
    }
  } finally {
    // Closes the connection when the consumer stops early; harmless after the end.
    await reader.cancel().catch(() => undefined);
  }
}
