/**
 * Local calendar time without ICU. The first local-time `Date` method
 * (getMonth, getHours, …) makes the runtime load ICU's time zone data:
 * ≈4.5 ms and ≈3.7 MiB of a headless run that only needs today's date for
 * the system prompt. Here the zone comes from the system's own TZif file
 * (RFC 8536): $TZ when it names a zone (`Europe/Oslo`, `:Europe/Oslo`;
 * looked up under $TZDIR or /usr/share/zoneinfo), else /etc/localtime. The UTC offset at an instant is the transition table's,
 * and past its last transition the footer's POSIX TZ rule (`CET-1CEST,M3.5.0,
 * M10.5.0/3`: Mm.w.d, Jn and n dates, times up to ±167 h).
 *
 * Whenever that is not certain — $TZ set to something that is not a
 * readable zone file (a bare POSIX string such as `EST5EDT`, an empty
 * value, an absolute path, which ICU does not read), a missing or malformed file, a footer rule it does not parse —
 * `localDateParts` answers with the `Date` local-time methods instead, so the
 * result is never a guess. The zone is read once per process (and per $TZ
 * value); nothing happens at import time.
 */
import { readFileSync } from "node:fs";
import { isAbsolute, join } from "node:path";

export interface LocalDateParts {
  readonly year: number;
  /** 1–12. */
  readonly month: number;
  /** 1–31. */
  readonly day: number;
  readonly hours: number;
  readonly minutes: number;
  readonly seconds: number;
}

interface DstRule {
  readonly stdOffset: number;
  readonly dstOffset: number;
  readonly start: RuleDate;
  readonly end: RuleDate;
}

type RuleDate =
  | { readonly kind: "month"; readonly month: number; readonly week: number; readonly weekday: number; readonly time: number }
  | { readonly kind: "julian"; readonly day: number; readonly leap: boolean; readonly time: number };

/** A footer: a fixed offset, or standard/daylight offsets with their rule. */
type Footer = { readonly kind: "fixed"; readonly offset: number } | { readonly kind: "rule"; readonly rule: DstRule };

interface Zone {
  /** Transition instants, seconds since the epoch, ascending. */
  readonly transitions: readonly number[];
  /** UTC offset (seconds east) in force from each transition on. */
  readonly offsets: readonly number[];
  /** Before the first transition (or with none). */
  readonly initialOffset: number;
  readonly footer: Footer | undefined;
}

let cached: { readonly tz: string | undefined; readonly zone: Zone | undefined } | undefined;

/** The calendar fields of `date` in the local time zone. */
export function localDateParts(date: Date): LocalDateParts {
  const offset = utcOffsetSeconds(date.getTime());
  if (offset === undefined) {
    return {
      year: date.getFullYear(),
      month: date.getMonth() + 1,
      day: date.getDate(),
      hours: date.getHours(),
      minutes: date.getMinutes(),
      seconds: date.getSeconds(),
    };
  }
  const shifted = new Date(date.getTime() + offset * 1000);
  return {
    year: shifted.getUTCFullYear(),
    month: shifted.getUTCMonth() + 1,
    day: shifted.getUTCDate(),
    hours: shifted.getUTCHours(),
    minutes: shifted.getUTCMinutes(),
    seconds: shifted.getUTCSeconds(),
  };
}

function pad2(value: number): string {
  return String(value).padStart(2, "0");
}

function dateText(local: LocalDateParts): string {
  return `${local.year}-${pad2(local.month)}-${pad2(local.day)}`;
}

/** `date`'s local calendar date as YYYY-MM-DD. */
export function localDateText(date: Date): string {
  return dateText(localDateParts(date));
}

/** `date`'s local time as YYYY-MM-DD HH:MM. */
export function localMinuteText(date: Date): string {
  const local = localDateParts(date);
  return `${dateText(local)} ${pad2(local.hours)}:${pad2(local.minutes)}`;
}

/** The local zone's offset from UTC at `epochMs`, in seconds east; undefined when not known for certain. */
export function utcOffsetSeconds(epochMs: number): number | undefined {
  if (!Number.isFinite(epochMs)) return undefined;
  const zone = localZone();
  if (zone === undefined) return undefined;
  const at = Math.floor(epochMs / 1000);
  const { transitions, offsets } = zone;
  if (transitions.length === 0 || at < transitions[0]!) {
    return transitions.length === 0 && zone.footer !== undefined ? footerOffset(zone.footer, at) : zone.initialOffset;
  }
  const last = transitions.length - 1;
  if (at >= transitions[last]! && zone.footer !== undefined) return footerOffset(zone.footer, at);
  let low = 0;
  let high = last;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (transitions[middle]! <= at) low = middle;
    else high = middle - 1;
  }
  return offsets[low];
}

function localZone(): Zone | undefined {
  const tz = process.env.TZ;
  if (cached !== undefined && cached.tz === tz) return cached.zone;
  cached = { tz, zone: readZone(zoneFile(tz)) };
  return cached.zone;
}

function zoneFile(tz: string | undefined): string | undefined {
  if (tz === undefined) return "/etc/localtime";
  const name = tz.startsWith(":") ? tz.slice(1) : tz;
  if (name === "" || name.includes("\0")) return undefined;
  // An absolute path is what glibc would read, but the runtime's ICU ignores it (UTC): keep its answer.
  if (isAbsolute(name)) return undefined;
  // A zone name: letters, digits and "/+-_" only, never climbing out of the zone directory.
  if (!/^[A-Za-z0-9_+-]+(\/[A-Za-z0-9_+-]+)*$/.test(name)) return undefined;
  return join(process.env.TZDIR || "/usr/share/zoneinfo", name);
}

function readZone(path: string | undefined): Zone | undefined {
  if (path === undefined) return undefined;
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch {
    return undefined;
  }
  try {
    return parseTzif(bytes);
  } catch {
    return undefined;
  }
}

const HEADER_BYTES = 44;

/** RFC 8536; undefined for anything malformed. Exported for tests. */
export function parseTzif(bytes: Uint8Array): Zone | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const header = (at: number) => {
    if (at + HEADER_BYTES > bytes.length) return undefined;
    if (bytes[at] !== 0x54 || bytes[at + 1] !== 0x5a || bytes[at + 2] !== 0x69 || bytes[at + 3] !== 0x66) return undefined;
    const count = (index: number) => view.getUint32(at + 20 + index * 4);
    return { version: bytes[at + 4]!, isut: count(0), isstd: count(1), leap: count(2), time: count(3), type: count(4), chars: count(5) };
  };
  const first = header(0);
  if (first === undefined) return undefined;
  const blockBytes = (h: NonNullable<typeof first>, timeSize: number) =>
    h.time * timeSize + h.time + h.type * 6 + h.chars + h.leap * (timeSize + 4) + h.isstd + h.isut;
  let h = first;
  let at = HEADER_BYTES;
  let timeSize = 4;
  if (first.version !== 0) {
    const second = header(HEADER_BYTES + blockBytes(first, 4));
    if (second === undefined) return undefined;
    h = second;
    at = HEADER_BYTES + blockBytes(first, 4) + HEADER_BYTES;
    timeSize = 8;
  }
  if (h.type === 0 || at + blockBytes(h, timeSize) > bytes.length) return undefined;
  const typeStart = at + h.time * timeSize + h.time;
  const typeOffset = (index: number): number | undefined => (index < h.type ? view.getInt32(typeStart + index * 6) : undefined);
  const typeIsDst = (index: number): boolean => bytes[typeStart + index * 6 + 4] === 1;
  const transitions: number[] = [];
  const offsets: number[] = [];
  for (let i = 0; i < h.time; i++) {
    const instant = timeSize === 8 ? Number(view.getBigInt64(at + i * 8)) : view.getInt32(at + i * 4);
    const offset = typeOffset(bytes[at + h.time * timeSize + i]!);
    if (offset === undefined || (i > 0 && instant <= transitions[i - 1]!)) return undefined;
    transitions.push(instant);
    offsets.push(offset);
  }
  // RFC 8536 3.2: local time before the first transition is type 0's.
  let initialOffset = typeOffset(0)!;
  if (typeIsDst(0)) {
    for (let i = 1; i < h.type; i++) {
      if (!typeIsDst(i)) {
        initialOffset = typeOffset(i)!;
        break;
      }
    }
  }
  let footer: Footer | undefined;
  if (timeSize === 8) {
    const footerStart = at + blockBytes(h, 8);
    if (bytes[footerStart] === 0x0a) {
      const endAt = bytes.indexOf(0x0a, footerStart + 1);
      if (endAt < 0) return undefined;
      const text = new TextDecoder().decode(bytes.subarray(footerStart + 1, endAt));
      if (text !== "") {
        footer = parsePosixTz(text);
        // A footer we cannot read makes every instant after the table uncertain.
        if (footer === undefined) return undefined;
      }
    }
  }
  return { transitions, offsets, initialOffset, footer };
}

/** A POSIX TZ string (the TZif footer form); undefined when not understood. Exported for tests. */
export function parsePosixTz(text: string): Footer | undefined {
  const reader = { text, at: 0 };
  if (!skipName(reader)) return undefined;
  const std = readSignedTime(reader);
  if (std === undefined) return undefined;
  const stdOffset = 0 - std;
  if (reader.at === text.length) return { kind: "fixed", offset: stdOffset };
  if (!skipName(reader)) return undefined;
  let dstOffset = stdOffset + 3600;
  if (text[reader.at] !== ",") {
    const dst = readSignedTime(reader);
    if (dst === undefined) return undefined;
    dstOffset = 0 - dst;
  }
  if (text[reader.at] !== ",") return undefined;
  reader.at++;
  const start = readRuleDate(reader);
  if (start === undefined || text[reader.at] !== ",") return undefined;
  reader.at++;
  const end = readRuleDate(reader);
  if (end === undefined || reader.at !== text.length) return undefined;
  return { kind: "rule", rule: { stdOffset, dstOffset, start, end } };
}

interface Reader {
  readonly text: string;
  at: number;
}

function skipName(reader: Reader): boolean {
  const { text } = reader;
  if (text[reader.at] === "<") {
    const close = text.indexOf(">", reader.at);
    if (close < 0) return false;
    reader.at = close + 1;
    return true;
  }
  const start = reader.at;
  while (reader.at < text.length && /[A-Za-z]/.test(text[reader.at]!)) reader.at++;
  return reader.at - start >= 3;
}

/** [+-]hh[:mm[:ss]] in seconds (hours up to 167). */
function readSignedTime(reader: Reader): number | undefined {
  const match = /^([+-]?)(\d{1,3})(?::(\d{1,2}))?(?::(\d{1,2}))?/.exec(reader.text.slice(reader.at));
  if (match === null) return undefined;
  const hours = Number(match[2]);
  const minutes = Number(match[3] ?? 0);
  const seconds = Number(match[4] ?? 0);
  if (hours > 167 || minutes > 59 || seconds > 59) return undefined;
  reader.at += match[0].length;
  const value = hours * 3600 + minutes * 60 + seconds;
  return match[1] === "-" ? -value : value;
}

function readRuleDate(reader: Reader): RuleDate | undefined {
  const rest = reader.text.slice(reader.at);
  let date: { readonly kind: "month"; readonly month: number; readonly week: number; readonly weekday: number } | { readonly kind: "julian"; readonly day: number; readonly leap: boolean };
  let match: RegExpExecArray | null;
  if ((match = /^M(\d{1,2})\.(\d)\.(\d)/.exec(rest)) !== null) {
    const [month, week, weekday] = [Number(match[1]), Number(match[2]), Number(match[3])];
    if (month < 1 || month > 12 || week < 1 || week > 5 || weekday > 6) return undefined;
    date = { kind: "month", month, week, weekday };
  } else if ((match = /^J(\d{1,3})/.exec(rest)) !== null) {
    const day = Number(match[1]);
    if (day < 1 || day > 365) return undefined;
    date = { kind: "julian", day: day - 1, leap: false };
  } else if ((match = /^(\d{1,3})/.exec(rest)) !== null) {
    const day = Number(match[1]);
    if (day > 365) return undefined;
    date = { kind: "julian", day, leap: true };
  } else {
    return undefined;
  }
  reader.at += match[0].length;
  let time = 7200;
  if (reader.text[reader.at] === "/") {
    reader.at++;
    const parsed = readSignedTime(reader);
    if (parsed === undefined) return undefined;
    time = parsed;
  }
  return { ...date, time };
}

const DAY = 86_400;

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/** Seconds since the epoch of local midnight (as if UTC) of the rule's day in `year`, plus its time. */
function ruleLocalSeconds(rule: RuleDate, year: number): number {
  const yearStart = Date.UTC(year, 0, 1) / 1000;
  if (rule.kind === "julian") {
    // Jn never counts February 29; n does.
    const day = !rule.leap && isLeapYear(year) && rule.day >= 59 ? rule.day + 1 : rule.day;
    return yearStart + day * DAY + rule.time;
  }
  const firstWeekday = new Date(Date.UTC(year, rule.month - 1, 1)).getUTCDay();
  const daysInMonth = new Date(Date.UTC(year, rule.month, 0)).getUTCDate();
  let day = 1 + ((rule.weekday - firstWeekday + 7) % 7) + (rule.week - 1) * 7;
  while (day > daysInMonth) day -= 7;
  return Date.UTC(year, rule.month - 1, day) / 1000 + rule.time;
}

function footerOffset(footer: Footer, at: number): number {
  if (footer.kind === "fixed") return footer.offset;
  const { stdOffset, dstOffset, start, end } = footer.rule;
  const year = new Date((at + stdOffset) * 1000).getUTCFullYear();
  // The start is given in standard time, the end in daylight time.
  const inDst = (y: number): boolean => {
    const startsAt = ruleLocalSeconds(start, y) - stdOffset;
    const endsAt = ruleLocalSeconds(end, y) - dstOffset;
    return startsAt < endsAt ? at >= startsAt && at < endsAt : !(at >= endsAt && at < startsAt);
  };
  return inDst(year) ? dstOffset : stdOffset;
}
