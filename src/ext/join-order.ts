/**
 * How extensions join during startup. Frames that arrive while an extension
 * is still starting are held: its `subscribe` frames until it finished
 * starting (ready, auto-ready, failed or past the deadline), its
 * registrations until it and every extension before it in load order
 * finished. So events and interception reach an extension as soon as it is
 * ready, while name conflicts resolve in load order on every run, however
 * fast each process is, and no extension waits for a slower one listed
 * after it. Frames of an extension that is gone by then are dropped.
 */
import type { ExtensionConnection } from "./connection.ts";
import type { InboundFrame, InboundOf } from "./frames.ts";

export interface JoinTarget {
  /** True while `connection` is still the live, open connection of its name. */
  isLive(connection: ExtensionConnection): boolean;
  applySubscription(connection: ExtensionConnection, frame: InboundOf<"subscribe">): void;
  applyRegistration(connection: ExtensionConnection, frame: InboundFrame): void;
  /** The extension finished starting; its subscriptions apply from now on. */
  joined(connection: ExtensionConnection): void;
}

export class JoinOrder {
  private readonly subscribes = new Map<string, InboundOf<"subscribe">[]>();
  private readonly registrations = new Map<string, InboundFrame[]>();
  private readonly finished: boolean[];
  private next = 0;

  constructor(
    private readonly order: readonly ExtensionConnection[],
    private readonly target: JoinTarget,
  ) {
    this.finished = order.map(() => false);
    for (const connection of order) {
      this.subscribes.set(connection.name, []);
      this.registrations.set(connection.name, []);
    }
  }

  /** The extensions still starting, in load order. */
  starting(): ExtensionConnection[] {
    return this.order.filter((_, index) => !this.finished[index]);
  }

  /** Holds `frame` when its extension may not apply it yet; false means apply it now. */
  hold(name: string, frame: InboundFrame): boolean {
    if (frame.type === "subscribe") {
      const held = this.subscribes.get(name);
      held?.push(frame);
      return held !== undefined;
    }
    const held = this.registrations.get(name);
    held?.push(frame);
    return held !== undefined;
  }

  /** `connection` finished starting: release what it may apply now, in load order. */
  finish(connection: ExtensionConnection): void {
    const index = this.order.indexOf(connection);
    if (index === -1 || this.finished[index]) return;
    this.finished[index] = true;
    const subscribes = this.subscribes.get(connection.name) ?? [];
    this.subscribes.delete(connection.name);
    if (this.target.isLive(connection)) {
      for (const frame of subscribes) this.target.applySubscription(connection, frame);
      this.target.joined(connection);
    }
    while (this.next < this.order.length && this.finished[this.next]) {
      const ready = this.order[this.next]!;
      this.next++;
      const frames = this.registrations.get(ready.name) ?? [];
      this.registrations.delete(ready.name);
      if (!this.target.isLive(ready)) continue;
      for (const frame of frames) this.target.applyRegistration(ready, frame);
    }
  }
}
