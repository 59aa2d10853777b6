/**
 * Public surface of the agent core: the session object every mode drives,
 * its events (and their --json serialisation), the hook contracts the
 * extension layer implements, and system prompt assembly.
 */
export { AgentSession, DEFAULT_MAX_STEPS, checkAgentSessionOptions } from "./session.ts";
export type { AgentSessionOptions, RunToolOptions } from "./session.ts";
export { ABORTED_MESSAGE } from "./loop.ts";
export {
  toJsonEventLine,
  isUiOnlyEvent,
  eventJson,
  contentJson,
  goJsonStringify,
  usageEvent,
  usageFields,
  parseArgsForDisplay,
} from "./events.ts";
export type { AgentEvent, AgentEventType, UsageFields } from "./events.ts";
export { DEFAULT_TOOL_BLOCK_REASON, DEFAULT_TURN_BLOCK_REASON, MODEL_ORIGIN, NO_HOOKS } from "./hooks.ts";
export type {
  AgentHooks,
  AssistantMessageDecision,
  AssistantMessageInfo,
  Awaitable,
  ToolCallDecision,
  ToolCallInfo,
  ToolCallOrigin,
  ToolResultInfo,
  TurnDecision,
  TurnStartInfo,
} from "./hooks.ts";
export { AGENT_ERROR_CODES } from "./types.ts";
export type {
  AgentPersistence,
  CompactionPersistRecord,
  AgentTools,
  PromptOptions,
  PromptOutcome,
  ToolCallRecord,
  ToolCallRequest,
} from "./types.ts";
export { ABORTED_BEFORE_EXECUTION, parseToolArguments } from "./tool-exec.ts";
export { IMAGE_MIRROR_INTRO, IMAGE_MIRROR_META_KEY, messageText } from "./messages.ts";
export {
  buildSystemPrompt,
  formatPromptDate,
  systemPromptFooter,
  CONTEXT_FILE_NAMES,
  DEFAULT_IDENTITY,
} from "./system-prompt.ts";
export type { SystemPromptOptions } from "./system-prompt.ts";
export {
  COMPACTION_META_KEY,
  DEFAULT_AUTO_COMPACT_THRESHOLD,
  DEFAULT_KEEP_RECENT,
  SUMMARY_HEADING,
  TOKENS_BEFORE_META_KEY,
  compact,
  estimateTokens,
  serializeConversation,
} from "./compaction.ts";
export type {
  CompactOptions,
  CompactionEndInfo,
  CompactionObserver,
  CompactionResult,
  CompactionStartInfo,
  CompactionStatus,
} from "./compaction.ts";
export {
  HEADLESS_NO_YOLO_WARNING,
  NO_CONFIRMER_REASON,
  PermissionGate,
  TURN_CANCELLED_REASON,
  USER_CANCELLED_REASON,
  USER_DECLINED_REASON,
  gateForMode,
  toolCallDecision,
  toolPreview,
} from "./permissions.ts";
export type {
  ApprovalSource,
  ConfirmAnswer,
  ConfirmRequest,
  ConfirmationRequestedInfo,
  Confirmer,
  GateChoice,
  PermissionDecisionInfo,
  PermissionGateOptions,
  PermissionObserver,
  PermissionRequest,
  PermissionVerdict,
  RefusalSource,
} from "./permissions.ts";
