// The Vercel AI SDK's own types (`ai`) against coworkkit's, as the README's example uses them:
// the tool call `useChat`'s onToolCall gets goes to handleToolCall as it is, and the answer is
// what addToolOutput takes (ChatInit and ChatAddToolOutputFunction are the types useChat's
// options and helpers are made of); on the server, tools("json") entries become the SDK's tools
// through jsonSchema(). No cast.
import {
  convertToModelMessages, DefaultChatTransport, jsonSchema, lastAssistantMessageIsCompleteWithToolCalls,
  streamText, tool, type ChatAddToolOutputFunction, type ChatInit, type LanguageModel, type ToolSet, type UIMessage,
} from "ai";
import type { AiSdkToolCall, AiSdkToolOutput, AnthropicToolResult, Coworkkit, JsonTool } from "coworkkit";

declare const ck: Coworkkit;
declare const addToolOutput: ChatAddToolOutputFunction<UIMessage>;

// The page (useChat's options).
export const chat: ChatInit<UIMessage> = {
  transport: new DefaultChatTransport({ api: "/api/chat", body: () => ({ tools: ck.tools("json") }) }),
  sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithToolCalls,
  onToolCall({ toolCall }) {
    void ck.handleToolCall(toolCall).then(addToolOutput);
  },
};
export async function answer(call: AiSdkToolCall): Promise<Parameters<ChatAddToolOutputFunction<UIMessage>>[0]> {
  const output: AiSdkToolOutput = await ck.handleToolCall(call);
  return output;
}

// The server: the manifest the page sent as tools without `execute`, so the model's calls come
// back to the page's onToolCall.
export function clientTools(manifest: JsonTool[]): ToolSet {
  return Object.fromEntries(manifest.map((t) => [t.name, tool({ description: t.description, inputSchema: jsonSchema(t.inputSchema) })]));
}
declare const model: LanguageModel;
export async function POST(request: Request): Promise<Response> {
  const body: { messages: UIMessage[]; tools: JsonTool[] } = await request.json();
  const result = streamText({ model, messages: await convertToModelMessages(body.messages), tools: clientTools(body.tools) });
  return result.toUIMessageStreamResponse();
}
export const fromThePage: ToolSet = clientTools(ck.tools("json"));

// The checks above are not vacuous: another shape's answer is not what addToolOutput takes, and
// jsonSchema() takes a JSON Schema only.
export function notAnOutput(result: AnthropicToolResult): void {
  // @ts-expect-error an Anthropic tool_result has no `tool` or `toolCallId`
  void addToolOutput(result);
}
// @ts-expect-error `type` must be a JSON Schema type name
export const notASchema = jsonSchema({ type: "objekt" });
