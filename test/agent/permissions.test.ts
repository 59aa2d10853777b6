import { describe, expect, test } from "bun:test";
import {
  HEADLESS_NO_YOLO_WARNING,
  NO_CONFIRMER_REASON,
  PermissionGate,
  gateForMode,
  toolCallDecision,
  toolPreview,
  type ConfirmAnswer,
  type ConfirmRequest,
  type ConfirmationRequestedInfo,
  type Confirmer,
  type PermissionDecisionInfo,
  type PermissionObserver,
} from "../../src/agent/index.ts";

/** Answers from a queue and records every request. */
class QueueConfirmer implements Confirmer {
  readonly requests: ConfirmRequest[] = [];
  constructor(readonly answers: ConfirmAnswer[]) {}
  async confirm(request: ConfirmRequest): Promise<ConfirmAnswer> {
    this.requests.push(request);
    const answer = this.answers.shift();
    if (answer === undefined) throw new Error("no answer scripted");
    return answer;
  }
}

/** Never answers on its own; resolves "cancel" when its dialog signal aborts. */
class WaitingConfirmer implements Confirmer {
  readonly requests: ConfirmRequest[] = [];
  confirm(request: ConfirmRequest): Promise<ConfirmAnswer> {
    this.requests.push(request);
    return new Promise((resolve) => request.signal.addEventListener("abort", () => resolve("cancel"), { once: true }));
  }
}

function recorder(): { observer: PermissionObserver; asked: ConfirmationRequestedInfo[]; decisions: PermissionDecisionInfo[] } {
  const asked: ConfirmationRequestedInfo[] = [];
  const decisions: PermissionDecisionInfo[] = [];
  return { asked, decisions, observer: { confirmationRequested: (i) => asked.push(i), decision: (i) => decisions.push(i) } };
}

const live = new AbortController().signal;

function call(toolName: string, args: Record<string, unknown> = {}, toolId = `id-${toolName}`) {
  return { toolId, toolName, args, signal: live };
}

describe("PermissionGate", () => {
  test("yolo approves without asking; confirmationRequested is not emitted", async () => {
    const rec = recorder();
    const gate = PermissionGate.yolo();
    expect(await gate.check(call("bash", { command: "ls" }), rec.observer)).toEqual({ approved: true, source: "yolo" });
    expect(rec.asked).toEqual([]);
    expect(rec.decisions).toEqual([
      { toolId: "id-bash", toolName: "bash", decision: "approved", source: "yolo", stage: "pre_execution" },
    ]);
  });

  test("allow once asks every time", async () => {
    const confirmer = new QueueConfirmer(["once", "once"]);
    const rec = recorder();
    const gate = new PermissionGate({ confirmer });
    expect(await gate.check(call("bash", { command: "ls" }), rec.observer)).toEqual({ approved: true, source: "user" });
    expect(await gate.check(call("bash", { command: "pwd" }), rec.observer)).toEqual({ approved: true, source: "user" });
    expect(confirmer.requests.map((r) => r.preview)).toEqual(["ls", "pwd"]);
    expect(rec.asked).toEqual([
      { toolId: "id-bash", toolName: "bash", toolPreview: "ls" },
      { toolId: "id-bash", toolName: "bash", toolPreview: "pwd" },
    ]);
    expect(rec.decisions.map((d) => `${d.decision}/${d.source}`)).toEqual(["approved/user", "approved/user"]);
  });

  test("always_tool remembers only that tool", async () => {
    const confirmer = new QueueConfirmer(["always_tool", "once"]);
    const rec = recorder();
    const gate = new PermissionGate({ confirmer });
    expect(await gate.check(call("read", { path: "a" }), rec.observer)).toEqual({ approved: true, source: "user" });
    expect(await gate.check(call("read", { path: "b" }), rec.observer)).toEqual({ approved: true, source: "remembered" });
    expect(await gate.check(call("write", { path: "c" }), rec.observer)).toEqual({ approved: true, source: "user" });
    expect(confirmer.requests.map((r) => r.toolName)).toEqual(["read", "write"]);
    expect(rec.asked.map((a) => a.toolPreview)).toEqual(["a", "c"]);
    expect(rec.decisions.map((d) => d.source)).toEqual(["user", "remembered", "user"]);
    expect(gate.allowedTools).toEqual(["read"]);
  });

  test("always_all remembers everything", async () => {
    const confirmer = new QueueConfirmer(["always_all"]);
    const rec = recorder();
    const gate = new PermissionGate({ confirmer });
    await gate.check(call("bash", { command: "make" }), rec.observer);
    expect(await gate.check(call("write", { path: "x" }), rec.observer)).toEqual({ approved: true, source: "remembered" });
    expect(await gate.check(call("ext_tool"), rec.observer)).toEqual({ approved: true, source: "remembered" });
    expect(confirmer.requests).toHaveLength(1);
    expect(rec.asked).toHaveLength(1);
    expect(gate.allowAll).toBe(true);
  });

  test("deny and cancel refuse with their reasons and are not remembered", async () => {
    const confirmer = new QueueConfirmer(["deny", "cancel", "once"]);
    const rec = recorder();
    const gate = new PermissionGate({ confirmer });
    const denied = await gate.check(call("bash", { command: "rm -rf build" }), rec.observer);
    expect(denied).toEqual({ approved: false, decision: "denied", source: "user", reason: "user declined" });
    const cancelled = await gate.check(call("bash", { command: "rm -rf build" }), rec.observer);
    expect(cancelled).toEqual({ approved: false, decision: "cancelled", source: "user", reason: "user cancelled" });
    expect(await gate.check(call("bash"), rec.observer)).toEqual({ approved: true, source: "user" });
    expect(rec.decisions.slice(0, 2)).toEqual([
      { toolId: "id-bash", toolName: "bash", decision: "denied", source: "user", stage: "pre_execution", reason: "user declined" },
      { toolId: "id-bash", toolName: "bash", decision: "cancelled", source: "user", stage: "pre_execution", reason: "user cancelled" },
    ]);
    expect(toolCallDecision(denied)).toEqual({ block: { reason: "user declined", status: "blocked" } });
    expect(toolCallDecision(cancelled)).toEqual({ block: { reason: "user cancelled", status: "cancelled" } });
    expect(toolCallDecision({ approved: true, source: "user" })).toBeUndefined();
  });

  test("no confirmer refuses by policy without announcing a confirmation", async () => {
    const rec = recorder();
    const verdict = await new PermissionGate().check(call("bash", { command: "ls" }), rec.observer);
    expect(verdict).toEqual({ approved: false, decision: "denied", source: "policy", reason: NO_CONFIRMER_REASON });
    expect(rec.asked).toEqual([]);
    expect(rec.decisions).toHaveLength(1);
  });

  test("a confirmer failure denies by policy", async () => {
    const rec = recorder();
    const verdict = await new PermissionGate({ confirmer: new QueueConfirmer([]) }).check(call("bash"), rec.observer);
    expect(verdict).toMatchObject({ approved: false, decision: "denied", source: "policy" });
    expect(verdict.approved === false && verdict.reason).toBe("confirmation failed: no answer scripted");
  });

  test("aborting the turn cancels a pending confirmation and closes its dialog", async () => {
    const confirmer = new WaitingConfirmer();
    const gate = new PermissionGate({ confirmer });
    const controller = new AbortController();
    const pending = gate.check({ toolId: "t1", toolName: "bash", args: {}, signal: controller.signal });
    await Promise.resolve();
    expect(gate.pendingCount).toBe(1);
    controller.abort();
    expect(await pending).toEqual({ approved: false, decision: "cancelled", source: "user", reason: "turn cancelled" });
    expect(confirmer.requests[0]?.signal.aborted).toBe(true);
    expect(gate.pendingCount).toBe(0);
    // Already cancelled calls are not put to the user.
    const rec = recorder();
    expect(await gate.check({ toolId: "t2", toolName: "bash", args: {}, signal: AbortSignal.abort() }, rec.observer)).toMatchObject({
      decision: "cancelled",
      source: "policy",
    });
    expect(rec.asked).toEqual([]);
  });

  test("enableYolo approves pending confirmations and stops asking", async () => {
    const confirmer = new WaitingConfirmer();
    const gate = new PermissionGate({ confirmer });
    const first = gate.check(call("bash"));
    const second = gate.check(call("write"));
    await Promise.resolve();
    gate.enableYolo();
    expect(await first).toEqual({ approved: true, source: "yolo" });
    expect(await second).toEqual({ approved: true, source: "yolo" });
    expect(confirmer.requests.every((r) => r.signal.aborted)).toBe(true);
    expect(await gate.check(call("edit"))).toEqual({ approved: true, source: "yolo" });
    expect(confirmer.requests).toHaveLength(2);
  });
});

describe("toolPreview", () => {
  test("field priority: command, path, file_path, url, query, name", () => {
    expect(toolPreview({ name: "n", query: "q", url: "u", file_path: "f", path: "p", command: "c" })).toBe("c");
    expect(toolPreview({ name: "n", query: "q", url: "u", file_path: "f", path: "p" })).toBe("p");
    expect(toolPreview({ name: "n", query: "q", url: "u", file_path: "f" })).toBe("f");
    expect(toolPreview({ name: "n", query: "q", url: "u" })).toBe("u");
    expect(toolPreview({ name: "n", query: "q" })).toBe("q");
    expect(toolPreview({ name: "n" })).toBe("n");
  });

  test("empty and non-string fields are skipped; otherwise compact JSON", () => {
    expect(toolPreview({ command: "", path: "  ", file_path: 3, url: "site" })).toBe("site");
    expect(toolPreview({ edits: [{ oldText: "a", newText: "b" }] })).toBe('{"edits":[{"oldText":"a","newText":"b"}]}');
    expect(toolPreview({})).toBe("{}");
  });

  test("truncated to 120 characters with an ellipsis", () => {
    expect(toolPreview({ command: "x".repeat(120) })).toBe("x".repeat(120));
    const cut = toolPreview({ command: "y".repeat(200) });
    expect(cut).toBe(`${"y".repeat(119)}…`);
    expect(Array.from(cut)).toHaveLength(120);
    // Never splits a surrogate pair.
    expect(Array.from(toolPreview({ command: "😀".repeat(130) }))).toEqual([...Array(119).fill("😀"), "…"]);
  });
});

describe("gateForMode", () => {
  test("yolo by default, a confirming gate with --no-yolo, one warning and yolo when headless", async () => {
    const warnings: string[] = [];
    const warn = (line: string) => warnings.push(line);
    expect(gateForMode({ noYolo: false, warn }).yolo).toBe(true);
    const confirming = gateForMode({ noYolo: true, confirmer: new QueueConfirmer(["deny"]), warn });
    expect(confirming.yolo).toBe(false);
    expect(await confirming.check(call("bash"))).toMatchObject({ approved: false, reason: "user declined" });
    expect(warnings).toEqual([]);
    const headless = gateForMode({ noYolo: true, warn });
    expect(headless.yolo).toBe(true);
    expect(warnings).toEqual([HEADLESS_NO_YOLO_WARNING]);
  });
});
