/**
 * The bridge between one agent session and the extension manager. A mode
 * creates one per session and (1) passes `hooks` to the AgentSession so
 * interception runs at the agent's hook points, (2) forwards every agent
 * event to `observe` so extensions receive lifecycle notifications, and (3)
 * calls the session lifecycle methods. With no extension subscribed, every
 * method is a cheap no-op.
 */
import type { AgentEvent } from "../agent/events.ts";
import { type AgentHooks, NO_HOOKS } from "../agent/hooks.ts";
import type { ExtensionManager } from "./manager.ts";

export type SessionEndReason = "shutdown" | "session_switch" | "cwd_change";

export interface BridgeOptions {
  readonly sessionId: string;
  /** The user's project directory. */
  readonly cwd: string;
  readonly provider: string;
  readonly model: string;
  /** Interactive hosts may run interactive tools and accept `submit`. */
  readonly interactive: boolean;
}

export class ExtensionBridge {
  readonly hooks: AgentHooks = NO_HOOKS;

  constructor(
    readonly manager: ExtensionManager,
    readonly options: BridgeOptions,
  ) {}

  /** Feed every agent event here (AgentSession onEvent). */
  observe(event: AgentEvent): void {
    void event;
  }

  /** The active conversation opened. */
  sessionStart(): void {}

  /** Model input accepted, before it is appended (user_prompt_submit). */
  userPromptSubmit(text: string, imageCount = 0): void {
    void text;
    void imageCount;
  }

  /** The active conversation closes; resolves once the frames are queued. */
  async sessionEnd(reason: SessionEndReason): Promise<void> {
    void reason;
  }
}
