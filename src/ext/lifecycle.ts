/**
 * Lifecycle notifications (extensions.md `event`, "Lifecycle payloads"). Each
 * notification carries session_id, cwd (and agent_id in a swarm child) and a manager-wide, strictly
 * increasing sequence (one number per notification, whoever subscribes), and
 * is queued to every subscribed extension through its ordered, bounded
 * outbound queue: emitting never waits for a subprocess, and a subscriber
 * that does not read overflows its queue and is disconnected.
 */
import type { ExtensionConnection } from "./connection.ts";
import type { LifecycleEvent } from "./frames.ts";
import type { ExtensionManager } from "./manager.ts";

export interface LifecycleContext {
  readonly sessionId: string;
  readonly cwd: string;
  /** Set in a swarm child: every notification carries `agent_id`. */
  readonly agentId?: string;
}

/** True when at least one running extension subscribed to `event`. */
export function hasSubscribers(manager: ExtensionManager, event: LifecycleEvent): boolean {
  for (const connection of manager.connections()) {
    if (!connection.closed && manager.subscriptions.get(connection.name)?.events.has(event)) return true;
  }
  return false;
}

/** Sends one notification to every subscriber (or only to `only`). Returns its sequence number. */
export function emitLifecycle(
  manager: ExtensionManager,
  context: LifecycleContext,
  event: LifecycleEvent,
  payload: Readonly<Record<string, unknown>> = {},
  only?: ExtensionConnection,
): number {
  const sequence = manager.nextSequence();
  let frame: Record<string, unknown> | undefined;
  for (const connection of only === undefined ? manager.connections() : [only]) {
    if (connection.closed || !manager.subscriptions.get(connection.name)?.events.has(event)) continue;
    frame ??= {
      type: "event", event, session_id: context.sessionId, cwd: context.cwd, sequence,
      ...(context.agentId !== undefined ? { agent_id: context.agentId } : {}), ...payload,
    };
    connection.send(frame as { type: "event"; event: string });
  }
  return sequence;
}
