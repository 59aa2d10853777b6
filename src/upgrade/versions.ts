/**
 * Version comparison for `zot upgrade`: "1.2.3", "v1.2.3" and
 * "1.2.3-rc.1" (a pre-release sorts before its release; pre-release parts
 * compare numerically when both are numbers, else as text). The text a
 * binary prints for --version is "zot <semver>[ (<commit>, <date>)]".
 */
interface ParsedVersion {
  readonly core: readonly number[];
  readonly pre: readonly string[];
}

function parse(version: string): ParsedVersion {
  const [main = "", ...rest] = version.trim().replace(/^v/, "").split("+")[0]!.split("-");
  const pre = rest.join("-");
  return { core: main.split(".").map((part) => Number.parseInt(part, 10) || 0), pre: pre === "" ? [] : pre.split(".") };
}

/** <0 when a is older than b, 0 when equal, >0 when newer. */
export function compareVersions(a: string, b: string): number {
  const left = parse(a);
  const right = parse(b);
  for (let i = 0; i < Math.max(left.core.length, right.core.length); i++) {
    const diff = (left.core[i] ?? 0) - (right.core[i] ?? 0);
    if (diff !== 0) return diff;
  }
  if (left.pre.length === 0 || right.pre.length === 0) return right.pre.length - left.pre.length;
  for (let i = 0; i < Math.max(left.pre.length, right.pre.length); i++) {
    const l = left.pre[i];
    const r = right.pre[i];
    if (l === undefined) return -1;
    if (r === undefined) return 1;
    const ln = /^\d+$/.test(l) ? Number(l) : undefined;
    const rn = /^\d+$/.test(r) ? Number(r) : undefined;
    if (ln !== undefined && rn !== undefined && ln !== rn) return ln - rn;
    if (l !== r) return l < r ? -1 : 1;
  }
  return 0;
}

/** Whether a `--version` answer is that of zot `version` ("zot 1.2.3" or "zot 1.2.3 (abc1234, 2026-12-01)"). */
export function answersVersion(output: string, version: string): boolean {
  const line = output.trim().split("\n")[0] ?? "";
  return line === `zot ${version}` || line.startsWith(`zot ${version} `);
}
