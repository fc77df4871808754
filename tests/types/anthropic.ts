// Anthropic's own types (`@anthropic-ai/sdk`) against coworkkit's: the manifest is its tools
// param, a tool_use block is what handleToolCall takes, its answer a tool_result block. No cast.
import type Anthropic from "@anthropic-ai/sdk";
import type { MessageParam, Tool, ToolResultBlockParam, ToolUseBlock } from "@anthropic-ai/sdk/resources/messages";
import type { Coworkkit } from "coworkkit";

declare const ck: Coworkkit;
declare const anthropic: Anthropic;

// The README's loop, typed.
export async function chat(messages: MessageParam[]): Promise<string> {
  for (;;) {
    const response = await anthropic.messages.create({
      model: "claude-sonnet-4-5", max_tokens: 1024, messages, tools: ck.tools("anthropic"),
    });
    messages.push({ role: "assistant", content: response.content });
    const calls = response.content.filter((block): block is ToolUseBlock => block.type === "tool_use");
    if (calls.length === 0) {
      return response.content.map((block) => (block.type === "text" ? block.text : "")).join("");
    }
    const results = await Promise.all(calls.map((call) => ck.handleToolCall(call)));
    messages.push({ role: "user", content: results });
  }
}
export const tools: Tool[] = ck.tools("anthropic");
export async function answer(call: ToolUseBlock): Promise<ToolResultBlockParam> {
  return ck.handleToolCall(call);
}

// @ts-expect-error an MCP manifest is no list of Anthropic tools (its schema is `inputSchema`)
export const notTools: Tool[] = ck.tools("mcp");
