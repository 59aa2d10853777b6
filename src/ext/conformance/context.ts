/**
 * What the conformance run's steps share (run.ts drives them, exercise.ts
 * holds the ones that call into the extension): the run's context, what the
 * extension registered so far, and the spec's deadlines.
 */
import type { InboundOf } from "../frames.ts";
import type { LoadedManifest } from "../manifest.ts";
import type { KeyOrderWatch } from "./key-order.ts";
import type { ConformanceReport } from "./report.ts";

export const DEFAULT_REPLY_TIMEOUT_MS = 10_000;
export const STARTUP_TIMEOUT_MS = 15_000;
export const INTERCEPT_TIMEOUT_MS = 5_000;
export const SHUTDOWN_GRACE_MS = 2_000;

export interface Registered {
  readonly hello?: InboundOf<"hello">;
  readonly tools: InboundOf<"register_tool">[];
  readonly commands: InboundOf<"register_command">[];
  readonly subscribe: InboundOf<"subscribe">[];
  ready: boolean;
  readonly openPanels: Set<string>;
  /** Set while the key-order burst of one panel is being watched. */
  keyOrder?: KeyOrderWatch;
}

export interface Context {
  readonly report: ConformanceReport;
  readonly loaded: LoadedManifest;
  readonly execPath: string;
  readonly replyTimeoutMs: number;
  readonly zotVersion: string;
  readonly frameProblems: Set<string>;
  /** Frame problems past the listed maximum (not listed). */
  unlistedProblems?: number;
  /** Frame counts by type of the main run. */
  counts?: ReadonlyMap<string, number>;
}
