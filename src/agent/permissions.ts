/**
 * The --no-yolo permission gate (reference notes §4.11; extensions.md "Tool
 * outcomes and permission decisions"). PermissionGate.check decides one tool
 * call before execution and never throws:
 *   - yolo mode (the default, and after enableYolo()) → approved, source "yolo";
 *   - the tool (or everything) approved earlier with "always" → approved, "remembered";
 *   - no confirmer → denied, source "policy" (the model is told to ask the user);
 *   - otherwise the Confirmer is asked: once / always_tool / always_all →
 *     approved "user"; deny → denied "user declined"; cancel, or the call's
 *     signal aborting meanwhile → cancelled "user cancelled" / "turn cancelled".
 * The observer's confirmationRequested fires only when a Confirmer is actually
 * awaited; decision fires exactly once per check. Memory (allow-all flag and
 * allowed tool names) lives in the gate, i.e. per session, in RAM only.
 * Headless modes have no confirmer: headlessGate() warns once and runs yolo.
 */
import { errorMessage } from "../common/errors.ts";
import type { ToolCallDecision } from "./hooks.ts";

export type ConfirmAnswer = "once" | "always_tool" | "always_all" | "deny" | "cancel";

export interface ConfirmRequest {
  readonly toolId: string;
  readonly toolName: string;
  readonly preview: string;
  /** Extensions whose guards rewrote the arguments shown (the dialog says so). */
  readonly rewrittenBy?: readonly string[];
  /** Aborted when the turn is cancelled or /yolo approved the request: close the dialog. */
  readonly signal: AbortSignal;
}

/** The UI side of the gate (the TUI's confirm dialog). */
export interface Confirmer {
  confirm(request: ConfirmRequest): Promise<ConfirmAnswer>;
}

export interface PermissionRequest {
  readonly toolId: string;
  readonly toolName: string;
  readonly args: Readonly<Record<string, unknown>>;
  /** Extensions whose guards rewrote `args` (the model asked for something else). */
  readonly rewrittenBy?: readonly string[];
  readonly signal: AbortSignal;
}

export type ApprovalSource = "user" | "remembered" | "yolo";
export type RefusalSource = "user" | "policy";

export type PermissionVerdict =
  | { readonly approved: true; readonly source: ApprovalSource }
  | {
      readonly approved: false;
      readonly decision: "denied" | "cancelled";
      readonly source: RefusalSource;
      readonly reason: string;
    };

export interface ConfirmationRequestedInfo {
  readonly toolId: string;
  readonly toolName: string;
  readonly toolPreview: string;
}

/** Shaped like the permission_decision event payload. */
export interface PermissionDecisionInfo {
  readonly toolId: string;
  readonly toolName: string;
  readonly decision: "approved" | "denied" | "cancelled";
  readonly source: ApprovalSource | RefusalSource;
  readonly stage: "pre_execution";
  readonly reason?: string;
}

/** tool_confirmation_requested / permission_decision feed. Errors thrown here are ignored. */
export interface PermissionObserver {
  confirmationRequested?(info: ConfirmationRequestedInfo): void;
  decision?(info: PermissionDecisionInfo): void;
}

export const USER_DECLINED_REASON = "user declined";
export const USER_CANCELLED_REASON = "user cancelled";
export const TURN_CANCELLED_REASON = "turn cancelled";
export const NO_CONFIRMER_REASON =
  "tool call refused: it needs the user's confirmation and none can be asked for here; ask the user to run it or to allow it";
export const HEADLESS_NO_YOLO_WARNING = "zot: warning: --no-yolo needs an interactive confirmation; running without confirmations\n";

export const PREVIEW_FIELDS = ["command", "path", "file_path", "url", "query", "name"] as const;
export const PREVIEW_MAX_CHARS = 120;

/** First non-blank string among PREVIEW_FIELDS, else compact JSON; at most 120 characters, "…" when cut. */
export function toolPreview(args: Readonly<Record<string, unknown>>): string {
  let text: string | undefined;
  for (const field of PREVIEW_FIELDS) {
    const value = args[field];
    if (typeof value === "string" && value.trim() !== "") {
      text = value;
      break;
    }
  }
  if (text === undefined) {
    try {
      text = JSON.stringify(args) ?? "{}";
    } catch {
      text = "{}";
    }
  }
  const chars = Array.from(text);
  return chars.length <= PREVIEW_MAX_CHARS ? text : `${chars.slice(0, PREVIEW_MAX_CHARS - 1).join("")}…`;
}

export interface PermissionGateOptions {
  /** Start in yolo mode (no confirmations). Default false: this is the --no-yolo gate. */
  readonly yolo?: boolean;
  /** Absent → every call is refused by policy (unless yolo or remembered). */
  readonly confirmer?: Confirmer;
}

interface PendingConfirmation {
  readonly settle: (verdict: PermissionVerdict) => void;
}

function notify(run: () => void): void {
  try {
    run();
  } catch {
    // Observers must not break the gate.
  }
}

function refusal(decision: "denied" | "cancelled", source: RefusalSource, reason: string): PermissionVerdict {
  return { approved: false, decision, source, reason };
}

export class PermissionGate {
  #yolo: boolean;
  #allowAll = false;
  readonly #allowedTools = new Set<string>();
  readonly #confirmer: Confirmer | undefined;
  readonly #pending = new Set<PendingConfirmation>();

  constructor(options: PermissionGateOptions = {}) {
    this.#yolo = options.yolo ?? false;
    this.#confirmer = options.confirmer;
  }

  /** The default mode: approves everything with source "yolo". */
  static yolo(): PermissionGate {
    return new PermissionGate({ yolo: true });
  }

  get yolo(): boolean {
    return this.#yolo;
  }

  get allowAll(): boolean {
    return this.#allowAll;
  }

  get allowedTools(): readonly string[] {
    return [...this.#allowedTools].sort();
  }

  /** /yolo: no more confirmations for the rest of the session; pending ones are approved. Irreversible. */
  enableYolo(): void {
    this.#yolo = true;
    for (const pending of [...this.#pending]) pending.settle({ approved: true, source: "yolo" });
  }

  /** Number of confirmations currently awaited. */
  get pendingCount(): number {
    return this.#pending.size;
  }

  async check(request: PermissionRequest, observer: PermissionObserver = {}): Promise<PermissionVerdict> {
    const verdict = await this.#decide(request, observer);
    const info: PermissionDecisionInfo = verdict.approved
      ? { toolId: request.toolId, toolName: request.toolName, decision: "approved", source: verdict.source, stage: "pre_execution" }
      : {
          toolId: request.toolId,
          toolName: request.toolName,
          decision: verdict.decision,
          source: verdict.source,
          stage: "pre_execution",
          reason: verdict.reason,
        };
    notify(() => observer.decision?.(info));
    return verdict;
  }

  async #decide(request: PermissionRequest, observer: PermissionObserver): Promise<PermissionVerdict> {
    if (this.#yolo) return { approved: true, source: "yolo" };
    if (this.#allowAll || this.#allowedTools.has(request.toolName)) return { approved: true, source: "remembered" };
    if (request.signal.aborted) return refusal("cancelled", "policy", TURN_CANCELLED_REASON);
    const confirmer = this.#confirmer;
    if (confirmer === undefined) return refusal("denied", "policy", NO_CONFIRMER_REASON);

    const preview = toolPreview(request.args);
    notify(() => observer.confirmationRequested?.({ toolId: request.toolId, toolName: request.toolName, toolPreview: preview }));
    return this.#ask(confirmer, request, preview);
  }

  /** Waits for the confirmer, an abort of the call, or enableYolo(), whichever comes first. */
  #ask(confirmer: Confirmer, request: PermissionRequest, preview: string): Promise<PermissionVerdict> {
    return new Promise<PermissionVerdict>((resolve) => {
      const dialog = new AbortController();
      let done = false;
      const onAbort = (): void => settle(refusal("cancelled", "user", TURN_CANCELLED_REASON));
      const pending: PendingConfirmation = { settle: (verdict) => settle(verdict) };
      const settle = (verdict: PermissionVerdict): void => {
        if (done) return;
        done = true;
        this.#pending.delete(pending);
        request.signal.removeEventListener("abort", onAbort);
        dialog.abort();
        resolve(verdict);
      };
      this.#pending.add(pending);
      request.signal.addEventListener("abort", onAbort, { once: true });
      let answer: Promise<ConfirmAnswer>;
      try {
        const rewrittenBy = request.rewrittenBy !== undefined && request.rewrittenBy.length > 0 ? { rewrittenBy: request.rewrittenBy } : {};
        answer = confirmer.confirm({ toolId: request.toolId, toolName: request.toolName, preview, signal: dialog.signal, ...rewrittenBy });
      } catch (err) {
        settle(refusal("denied", "policy", `confirmation failed: ${errorMessage(err)}`));
        return;
      }
      answer.then(
        (choice) => settle(this.#apply(choice, request.toolName)),
        (err: unknown) => settle(refusal("denied", "policy", `confirmation failed: ${errorMessage(err)}`)),
      );
    });
  }

  #apply(choice: ConfirmAnswer, toolName: string): PermissionVerdict {
    switch (choice) {
      case "once":
        return { approved: true, source: "user" };
      case "always_tool":
        this.#allowedTools.add(toolName);
        return { approved: true, source: "user" };
      case "always_all":
        this.#allowAll = true;
        return { approved: true, source: "user" };
      case "deny":
        return refusal("denied", "user", USER_DECLINED_REASON);
      case "cancel":
        return refusal("cancelled", "user", USER_CANCELLED_REASON);
      default:
        return refusal("denied", "policy", `confirmation failed: unknown answer ${JSON.stringify(choice)}`);
    }
  }
}

/** The beforeToolCall answer for a verdict: undefined to proceed, else a block the model sees as the tool error. */
export function toolCallDecision(verdict: PermissionVerdict): ToolCallDecision | undefined {
  if (verdict.approved) return undefined;
  return { block: { reason: verdict.reason, status: verdict.decision === "cancelled" ? "cancelled" : "blocked" } };
}

export interface GateChoice {
  /** --no-yolo was given. */
  readonly noYolo: boolean;
  /** The mode's confirmer; undefined in headless modes. */
  readonly confirmer?: Confirmer;
  /** Receives HEADLESS_NO_YOLO_WARNING (one line with "\n") when --no-yolo cannot be honoured. */
  readonly warn: (line: string) => void;
}

/**
 * The gate a mode should use: yolo unless --no-yolo; with --no-yolo but no
 * confirmer (print, JSON, RPC), one warning and yolo mode. Call once per run.
 */
export function gateForMode(choice: GateChoice): PermissionGate {
  if (!choice.noYolo) return PermissionGate.yolo();
  if (choice.confirmer === undefined) {
    choice.warn(HEADLESS_NO_YOLO_WARNING);
    return PermissionGate.yolo();
  }
  return new PermissionGate({ confirmer: choice.confirmer });
}
