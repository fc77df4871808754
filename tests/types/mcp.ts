// The MCP SDK's own types against coworkkit's: tools("mcp") is a tools/list result's tools, a
// tools/call request's params go to handleToolCall, and its answer is a CallToolResult. No cast.
import type { CallToolRequest, CallToolResult, ListToolsResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import type { Coworkkit } from "coworkkit";

declare const ck: Coworkkit;

export const tools: Tool[] = ck.tools("mcp");
export const list: ListToolsResult = { tools: ck.tools("mcp") };
export async function call(request: CallToolRequest): Promise<CallToolResult> {
  return ck.handleToolCall(request.params);
}
