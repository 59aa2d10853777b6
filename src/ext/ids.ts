/**
 * Correlation ids for host → extension requests: a process-wide counter with
 * a short kind prefix ("cmd-1", "tool-2", …). Unique under any concurrency;
 * never derived from the clock.
 */
let counter = 0;

export type RequestKind = "cmd" | "tool" | "int" | "start";

export function nextRequestId(kind: RequestKind): string {
  counter += 1;
  return `${kind}-${counter}`;
}
