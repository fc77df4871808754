// Type-checked by the consumer test with `tsc --noEmit --strict` against the packed package:
// every entry's types resolve through `exports`, and wrong uses are type errors.
import init, { Coworkkit } from "coworkkit";
import type { ActionRecord, ActionSpec, Grant, ModelContextExposure, ModelContextLike, ModelContextTool, Outcome, Proposal, Receipt, Verification } from "coworkkit";
import {
  CoworkkitProvider,
  defineAction,
  useAction,
  useCoworkkit,
  useModelContext,
  useGrants,
  usePending,
} from "coworkkit/react";
import type { ModelContextState } from "coworkkit/react";
import initInline, { Coworkkit as InlineCoworkkit } from "coworkkit/inline";
import type { Outcome as InlineOutcome } from "coworkkit/inline";
import { createElement, type ReactElement } from "react";

await init();

const audit: ActionRecord[] = [];
const ck = new Coworkkit({
  defaultControl: "soft",
  onActionRecord: (record) => { audit.push(record); },
  approver: () => ({ id: "ann", role: "admin" }),
  labels: { confirm: "Löschen", confirmPasskey: "Mit Passkey löschen" },
  passkey: { credentials: async (approver) => (approver ? [approver.id] : []), timeoutMs: 30000 },
});
// @ts-expect-error passkey.credentials is required
new Coworkkit({ passkey: { rpId: "example.com" } });
ck.on("record", (r: ActionRecord) => {
  const v: Verification | undefined = r.verification;
  if (v) { const method: "passkey" = v.method; void method; void v.credentialId; }
});

const spec: ActionSpec<{ projectId: string }, { deleted: string }> = {
  name: "deleteProject",
  description: "Permanently delete a project.",
  control: "hard",
  confirmationSummary: (args) => `Delete ${args.projectId}?`,
  run: async (args, ctx) => {
    const who: string | undefined = ctx.approver?.id;
    void who;
    return { deleted: args.projectId };
  },
};
void spec;

const handle = ck.defineAction({ name: "archive", description: "Archive it.", control: "soft", run: () => true });
const name: string = handle.name;
handle.dispose();
void name;

// @ts-expect-error "medium" is not a control level
ck.defineAction({ name: "x", description: "x", control: "medium", run: () => 1 });
// @ts-expect-error "medium" is not a control level
new Coworkkit({ defaultControl: "medium" });

const outcome: Outcome = await ck.invoke({ name: "archive", args: { id: 1 } });
if (outcome.gate === "needs_confirmation") {
  const token: string | undefined = outcome.confirmToken;
  void token;
}
const waiting: Proposal[] = ck.pending();
void waiting;
const off: () => void = ck.on("proposal", (p) => { const id: string = p.id; void id; });
off();

// SPEC §12: a person's reason, Cancel all, grants.
const cancelled: boolean = ck.cancel("ckp_1", { reason: "Not this one" });
const all: number = ck.cancelAll({ action: "deleteProject", reason: "not today" });
void cancelled;
void all;
const grant: Grant = ck.grant("archive", { ttlMs: 30 * 60_000, maxUses: 5, match: { box: "inbox" } });
const live: readonly Grant[] = ck.grants();
const revoked: boolean = ck.revokeGrant(grant.id);
const offGrants = ck.on("grants", (list) => { const uses: number | undefined = list[0]?.uses; void uses; });
offGrants();
void live;
void revoked;
const declined = await ck.invoke({ name: "archive", args: { id: 1 }, confirmToken: "t", decline: true, reason: "not now" });
const next: string | undefined = declined.instruction;
void next;
const note: string | undefined = audit[0]?.note;
void note;
// @ts-expect-error maxUses is a number
ck.grant("archive", { maxUses: "5" });

const ping = defineAction({ name: "ping", description: "Answers pong.", run: () => "pong" });
ping.dispose();
// @ts-expect-error "medium" is not a control level
defineAction({ name: "y", description: "y", control: "medium", run: () => 0 });

function DeleteButton(props: { projectId: string }): ReactElement {
  useAction<{ projectId: string }, { deleted: string }>({
    name: "deleteProject",
    description: "Permanently delete a project.",
    control: "hard",
    input: { type: "object", properties: { projectId: { type: "string" } }, required: ["projectId"] },
    confirmationSummary: (args) => `Delete ${args.projectId}?`,
    run: (args) => ({ deleted: args.projectId }),
  });
  // @ts-expect-error "medium" is not a control level
  useAction({ name: "z", description: "z", control: "medium", run: () => 0 });
  // @ts-expect-error run must return the declared result type
  useAction<{ id: string }, number>({ name: "w", description: "w", run: () => "nope" });
  // A passkey-verified action, through the hook unchanged: ctx.receipt is typed.
  useAction<{ projectId: string }, boolean>({
    name: "purgeProject",
    description: "Purge a project for good.",
    control: "hard",
    verify: "passkey",
    run: (args, ctx) => {
      const receipt: Receipt | undefined = ctx.receipt;
      const signed: string | undefined = receipt?.credential.response.signature;
      return typeof receipt?.statement === "string" && signed !== "" && args.projectId !== "";
    },
  });
  // @ts-expect-error verify takes "passkey" only
  useAction({ name: "v", description: "v", control: "hard", verify: "pin", run: () => 0 });
  const pending: readonly Proposal[] = usePending();
  const grants: readonly Grant[] = useGrants();
  void grants;
  const instance: Coworkkit | null = useCoworkkit();
  void instance?.invoke({ name: "deleteProject", args: { projectId: props.projectId } });
  return createElement("span", null, `${pending.length} waiting`);
}

export const app: ReactElement = createElement(
  CoworkkitProvider,
  { defaultControl: "open", armDelayMs: 500, onActionRecord: (r: ActionRecord) => audit.push(r) },
  createElement(DeleteButton, { projectId: "p1" }),
);

// @ts-expect-error "medium" is not a control level
createElement(CoworkkitProvider, { defaultControl: "medium" });

// WebMCP: a structural model context (a polyfill's, or the browser's), the exposure handle,
// and the hook's state.
const context: ModelContextLike = {
  registerTool: (tool: ModelContextTool, options) => {
    const title: string = tool.title;
    const consequential: boolean = tool.annotations.consequentialHint;
    const signal: AbortSignal = options.signal;
    void [title, consequential, signal];
    return Promise.resolve();
  },
};
const exposure: ModelContextExposure = ck.exposeToModelContext({ modelContext: context, actions: ["archive"], exposedTo: ["https://agent.example"] });
await exposure.ready;
exposure.dispose();
ck.exposeToModelContext();
// @ts-expect-error exposedTo is a list of origins
ck.exposeToModelContext({ exposedTo: "https://agent.example" });
// @ts-expect-error a model context needs registerTool
ck.exposeToModelContext({ modelContext: { getTools: () => [] } });

function AgentAccess(): ReactElement {
  const state: ModelContextState = useModelContext({ actions: ["deleteProject"] });
  const code: string | undefined = state.status === "error" ? state.error.code : undefined;
  // @ts-expect-error only an error state has an error
  void state.error;
  return createElement("output", null, `${state.status} ${code ?? ""}`);
}
void AgentAccess;

// coworkkit/inline: the same API, with an init() that takes nothing (its wasm is inside it).
await initInline();
// @ts-expect-error the inline entry's init() has no asset to be told about
await initInline({ module_or_path: "/coworkkit_bg.wasm" });
const sameClass: Coworkkit = new InlineCoworkkit({ defaultControl: "open" });
const inlineOutcome: InlineOutcome = await sameClass.invoke({ name: "archive" });
void inlineOutcome;
// @ts-expect-error "medium" is not a control level
new InlineCoworkkit({ defaultControl: "medium" });
