/**
 * Public surface of the MCP area (Model Context Protocol servers as tool
 * sources, docs/mcp.md). Imported only when an MCP config exists or --mcp
 * was given (modes/mcp-setup.ts): nothing here loads otherwise.
 */
export { McpManager, type McpToolChange, type McpManagerOptions, DEFAULT_START_TIMEOUT_MS, DEFAULT_CALL_TIMEOUT_MS } from "./manager.ts";
export { loadMcpServers, type McpServerConfig, type McpConfigProblem, type LoadMcpOptions } from "./config.ts";
export type { McpTransport, JsonRpcMessage } from "./transport.ts";
