// AG-UI's own types (@ag-ui/core, and @ag-ui/client's HttpAgent) against coworkkit's:
// tools("ag-ui") is a run's `tools`, an assistant message's tool call goes to handleToolCall
// with { format: "ag-ui" }, and its answer is a `tool` message the next run carries. No cast.
import type { AssistantMessage, Message, RunAgentInput, Tool, ToolCall, ToolMessage } from "@ag-ui/core";
import type { HttpAgent } from "@ag-ui/client";
import type { AgUiTool, AgUiToolCall, AgUiToolMessage, Coworkkit } from "coworkkit";

declare const ck: Coworkkit;
declare const agent: HttpAgent;

export const tools: Tool[] = ck.tools("ag-ui");
export const input: RunAgentInput["tools"] = ck.tools("ag-ui");
export async function answer(call: ToolCall): Promise<ToolMessage> {
  return ck.handleToolCall(call, { format: "ag-ui" });
}
export async function asMessage(call: ToolCall): Promise<Message> {
  return ck.handleToolCall(call, { format: "ag-ui" });
}

// The README's loop: run, gate each tool call the run asked for, run again with the answers.
export async function loop(): Promise<void> {
  for (;;) {
    const { newMessages } = await agent.runAgent({ tools: ck.tools("ag-ui") });
    const calls = newMessages.flatMap((m) => (m.role === "assistant" ? m.toolCalls ?? [] : []));
    if (calls.length === 0) return;
    for (const call of calls) agent.addMessage(await ck.handleToolCall(call, { format: "ag-ui" }));
  }
}

// And back: coworkkit's own types take AG-UI's values.
export const call = (m: AssistantMessage): AgUiToolCall | undefined => m.toolCalls?.[0];
export const fromMessage = (m: AgUiToolMessage): ToolMessage => m;
export const fromTool = (t: AgUiTool): Tool => t;

// @ts-expect-error without the format, the same call is OpenAI Chat's and answered as its
export async function unnamed(c: ToolCall): Promise<ToolMessage> { return ck.handleToolCall(c); }
// @ts-expect-error the only format a call needs named is "ag-ui"
export const other = (c: ToolCall) => ck.handleToolCall(c, { format: "openai" });
// @ts-expect-error a tool message answers an AG-UI call, not an OpenAI Chat tool message
export const notChat = (c: ToolCall): Promise<{ role: "tool"; tool_call_id: string; content: string }> => ck.handleToolCall(c, { format: "ag-ui" });
