// OpenAI's own types (the `openai` SDK) against coworkkit's: the manifests are its tool params,
// its tool calls are what handleToolCall takes, and what it answers is its next message. No cast.
import type OpenAI from "openai";
import type {
  ChatCompletionFunctionTool, ChatCompletionMessageFunctionToolCall, ChatCompletionMessageParam,
  ChatCompletionToolMessageParam,
} from "openai/resources/chat/completions";
import type { FunctionTool, ResponseFunctionToolCall, ResponseInputItem } from "openai/resources/responses/responses";
import type { Coworkkit } from "coworkkit";

declare const ck: Coworkkit;
declare const openai: OpenAI;

// Chat Completions: the README's loop, typed.
export async function chat(messages: ChatCompletionMessageParam[]): Promise<string | null> {
  for (;;) {
    const response = await openai.chat.completions.create({ model: "gpt-4.1", messages, tools: ck.tools("openai") });
    const message = response.choices[0]!.message;
    messages.push(message);
    if (!message.tool_calls?.length) return message.content;
    for (const call of message.tool_calls) {
      // coworkkit lists function tools only, so a custom tool call is no call of ours.
      if (call.type === "function") messages.push(await ck.handleToolCall(call));
    }
  }
}
export const chatTools: ChatCompletionFunctionTool[] = ck.tools("openai");
export async function chatAnswer(call: ChatCompletionMessageFunctionToolCall): Promise<ChatCompletionToolMessageParam> {
  return ck.handleToolCall(call);
}

// Responses: function tools in, function_call items to handleToolCall, their outputs the next
// input (the conversation kept by previous_response_id).
export async function responses(text: string): Promise<string> {
  let input: ResponseInputItem[] = [{ role: "user", content: text }];
  let previous: string | undefined;
  for (;;) {
    const response = await openai.responses.create({
      model: "gpt-4.1", input, tools: ck.tools("openai-responses"), ...(previous ? { previous_response_id: previous } : {}),
    });
    const calls = response.output.filter((item): item is ResponseFunctionToolCall => item.type === "function_call");
    if (calls.length === 0) return response.output_text;
    previous = response.id;
    input = await Promise.all(calls.map((call) => ck.handleToolCall(call)));
  }
}
export const responsesTools: FunctionTool[] = ck.tools("openai-responses");
export async function responsesAnswer(call: ResponseFunctionToolCall): Promise<ResponseInputItem.FunctionCallOutput> {
  return ck.handleToolCall(call);
}

// Each format and each call shape is typed as itself, not as any of them.
// @ts-expect-error an Anthropic manifest is no list of Chat tools
export const notChatTools: ChatCompletionFunctionTool[] = ck.tools("anthropic");
// @ts-expect-error a Chat tool is no Responses tool (its name is inside `function`)
export const notResponsesTools: FunctionTool[] = ck.tools("openai");
export async function notAResponsesOutput(call: ChatCompletionMessageFunctionToolCall): Promise<ResponseInputItem.FunctionCallOutput> {
  // @ts-expect-error a Chat call is answered with a Chat tool message
  return ck.handleToolCall(call);
}
