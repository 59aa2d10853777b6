// McpTransport: the byte-level channel to one MCP server (stdio child process
// or Streamable HTTP). A transport moves whole JSON-RPC 2.0 objects; it does
// not interpret them (jsonrpc.ts validates and correlates). `onClose` fires
// once (crash, EOF, HTTP session lost); `close()` is idempotent and kills or
// releases everything the transport owns. Shared with issue 14 Part B.

export type JsonRpcMessage = Record<string, unknown>; // one JSON-RPC 2.0 object (validated by jsonrpc.ts)

export interface McpTransport {
  start(): Promise<void>;                            // rejects with a ZotError naming the server
  send(message: JsonRpcMessage): Promise<void>;
  onMessage(handler: (message: JsonRpcMessage) => void): void;
  onClose(handler: (reason: string) => void): void;  // called once: crash, EOF, HTTP session lost
  close(): Promise<void>;                            // idempotent; kills/cleans up everything
}
