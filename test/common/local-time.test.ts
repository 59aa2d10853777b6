/**
 * common/local-time.ts against the runtime's own local-time `Date` methods
 * (ICU), zone by zone in a child process with its own TZ, and the POSIX TZ
 * footer rules on their own. Through dist/zot: the system prompt's date
 * in zones far from UTC (UTC+14, UTC-12) and in the fallback cases.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { parsePosixTz, parseTzif, utcOffsetSeconds } from "../../src/common/local-time.ts";
import { removeTempDirs } from "../support/temp.ts";
import { useModeEnv, type ModeEnv } from "../modes/helpers.ts";

afterAll(removeTempDirs);

const ZONEINFO = "/usr/share/zoneinfo";
const haveZoneinfo = existsSync(join(ZONEINFO, "Europe", "Oslo"));
const MODULE = join(import.meta.dir, "..", "..", "src", "common", "local-time.ts");

/** In a child with TZ=zone: instants 2000–2040 where localDateParts and the Date methods disagree. */
async function mismatches(tz: string | undefined): Promise<string> {
  const script = `
    import { localDateParts } from ${JSON.stringify(MODULE)};
    const bad = [];
    for (let t = Date.UTC(2000, 0, 1); t < Date.UTC(2040, 0, 1); t += 3_600_000 * 5 + 987_654) {
      const d = new Date(t), p = localDateParts(d);
      if (p.year !== d.getFullYear() || p.month !== d.getMonth() + 1 || p.day !== d.getDate() || p.hours !== d.getHours() || p.minutes !== d.getMinutes() || p.seconds !== d.getSeconds()) bad.push(d.toISOString());
    }
    console.log(bad.slice(0, 3).join(" "));`;
  const env: Record<string, string> = { PATH: process.env.PATH ?? "/usr/bin:/bin" };
  if (tz !== undefined) env.TZ = tz;
  const proc = Bun.spawn([process.execPath, "-e", script], { env, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(err);
  return out.trim();
}

describe.skipIf(!haveZoneinfo)("localDateParts matches the Date local-time methods", () => {
  const zones = [
    undefined, "UTC", "Europe/Oslo", ":Europe/Paris", "America/New_York", "Australia/Sydney", "Pacific/Chatham",
    "America/St_Johns", "Asia/Kolkata", "Pacific/Kiritimati", "Etc/GMT+12", "Africa/Casablanca", "America/Santiago",
    "EST5EDT", "", "Not/AZone", "/usr/share/zoneinfo/Asia/Tokyo", "../../etc/passwd",
  ];
  for (const zone of zones) {
    test(`TZ=${zone === undefined ? "(unset)" : JSON.stringify(zone)}`, async () => {
      expect(await mismatches(zone)).toBe("");
    });
  }
});

describe("POSIX TZ footers", () => {
  test("fixed offsets: east is positive, names may be quoted", () => {
    expect(parsePosixTz("UTC0")).toEqual({ kind: "fixed", offset: 0 });
    expect(parsePosixTz("<+1345>-13:45")).toEqual({ kind: "fixed", offset: 13 * 3600 + 45 * 60 });
    expect(parsePosixTz("EST5")).toEqual({ kind: "fixed", offset: -5 * 3600 });
  });
  test("rules with M, J and n dates and explicit times parse; nonsense does not", () => {
    expect(parsePosixTz("CET-1CEST,M3.5.0,M10.5.0/3")?.kind).toBe("rule");
    expect(parsePosixTz("<-03>3<-02>,M3.5.0/-2,M10.5.0/-1")?.kind).toBe("rule");
    expect(parsePosixTz("XXX3YYY,J60/0,300/25")?.kind).toBe("rule");
    for (const bad of ["", "A1", "CET-1CEST", "CET-1CEST,M13.1.0,M10.5.0", "CET-1CEST,M3.5.0", "CET-1CEST,M3.5.0,M10.5.0junk", "CET-200"]) {
      expect(parsePosixTz(bad)).toBeUndefined();
    }
  });
  test("malformed TZif data is refused, not guessed", () => {
    expect(parseTzif(new TextEncoder().encode("not a zone file"))).toBeUndefined();
    const header = new Uint8Array(44);
    header.set([0x54, 0x5a, 0x69, 0x66, 0x32]);
    expect(parseTzif(header)).toBeUndefined();
  });
  test("an instant that is not a number has no offset", () => {
    expect(utcOffsetSeconds(Number.NaN)).toBeUndefined();
  });
});

describe.skipIf(!haveZoneinfo)("the system prompt's date through dist/zot", () => {
  let env: ModeEnv;
  useModeEnv((created) => (env = created));

  /** The local date in a zone of fixed offset, read before and after the run (a run may cross midnight). */
  const fixedZoneDate = (offsetHours: number) => new Date(Date.now() + offsetHours * 3_600_000).toISOString().slice(0, 10);

  for (const [tz, offsetHours] of [["Pacific/Kiritimati", 14], ["Etc/GMT+12", -12], ["UTC", 0]] as const) {
    test(`TZ=${tz}`, async () => {
      env.server.enqueue({ type: "text", text: "ok" });
      const before = fixedZoneDate(offsetHours);
      const result = await env.run(["-p", "hi", "--no-session", ...env.providerArgs("anthropic")], { env: { TZ: tz } });
      const after = fixedZoneDate(offsetHours);
      expect(result.stderr).toBe("");
      expect(result.code).toBe(0);
      const system = JSON.stringify((env.server.requests[0]?.body as { system?: unknown }).system);
      const date = /Current date: (\d{4}-\d{2}-\d{2})/.exec(system)?.[1];
      expect([before, after]).toContain(date ?? "(none)");
    });
  }
});
