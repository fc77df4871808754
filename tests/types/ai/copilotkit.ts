// CopilotKit's frontend tools are AG-UI tools: the tool `useFrontendTool` takes
// (@copilotkit/react-core/v2's ReactFrontendTool, a FrontendTool of @copilotkit/core plus a
// renderer) gets the AG-UI tool call in its handler's context, which goes to coworkkit as it is,
// and the handler's result becomes the tool message's content. Checked against
// @copilotkit/core's FrontendTool (react-core itself pulls a UI kit the check does not need).
import type { FrontendTool } from "@copilotkit/core";
import type { Coworkkit } from "coworkkit";
import { z } from "zod";

declare const ck: Coworkkit;

/** The README's wiring: coworkkit's words for the model, its gate for the call. */
export function gated<T extends Record<string, unknown>>(name: string, parameters: z.ZodType<T>): FrontendTool<T> {
  return {
    name,
    description: ck.tools("ag-ui").find((t) => t.name === name)?.description ?? "",
    parameters,
    handler: async (_args, { toolCall }) => (await ck.handleToolCall(toolCall, { format: "ag-ui" })).content,
  };
}
export const deleteProject = gated("deleteProject", z.object({ projectId: z.string() }));
export const archiveThread = gated("archiveThread", z.object({
  threadId: z.string(),
  confirmToken: z.string().optional(), decline: z.boolean().optional(), declineReason: z.string().optional(),
}));
