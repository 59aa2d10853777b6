/**
 * Subagents (issue 11, docs/agents.md): the `agent` tool, the supervisor that
 * runs its calls as `zot swarm-child` processes (bounded, cancellable, never
 * outliving zot), agent definitions (.zot/agents, $ZOT_HOME/agents), the
 * parent↔child NDJSON protocol and the run records. Dependencies: modes →
 * agents → agent / ext / tools / skills / common. Importing does no work.
 */
export { AGENT_TOOL_NAME, agentToolDescription, createAgentTool, type AgentToolOptions } from "./tool.ts";
export {
  AgentSupervisor,
  DEFAULT_AGENT_TIMEOUT_MS,
  DEFAULT_MAX_CONCURRENT,
  SHUTDOWN_GRACE_MS,
  type ChildSettings,
  type SubagentIdentity,
  type SubagentRequest,
  type SubagentResult,
  type SupervisorOptions,
  type SwarmObserver,
} from "./supervisor.ts";
export { discoverAgentDefinitions, parseAgentDefinition, MAX_DEFINITIONS, MAX_DEFINITION_BYTES, type AgentDefinition } from "./definitions.ts";
export { CANCEL_GRACE_MS, KILL_GRACE_MS, runChild, swarmChildCommand, type ChildResult } from "./child.ts";
export { encodeLine, parseChildLine, parseParentLine, MAX_SWARM_LINE_BYTES, type SubagentStatus, type SwarmTask, type SwarmUsage } from "./protocol.ts";
export { listRunRecords, writeRunRecord, type RunRecord } from "./runs.ts";
export { createSwarm, type Swarm, type SwarmSetup } from "./swarm.ts";
