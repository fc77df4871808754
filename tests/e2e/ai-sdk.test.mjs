// The Vercel AI SDK's tool call (issue 23) through the real package: `useChat`'s onToolCall
// hands `{ toolCallId, toolName, input }` to handleToolCall, and what comes back is what
// addToolOutput takes, `{ tool, toolCallId, output }`, at every gate: open, soft (asked, then
// the token with the model's next call), hard (a person's click on the card), rejected, and a
// re-sent call that runs nothing twice. Each answer is then put in an assistant message as the
// tool part addToolOutput makes of it, and that message must pass the AI SDK's own
// validateUIMessages.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { validateUIMessages } from "ai";
import { launch, openFixture, waitCard, clickPart, sleep, waitArmed, confirmCard } from "./harness.mjs";

let env, p;
before(async () => {
  env = await launch();
  p = await openFixture(env);
});
after(async () => { await env?.close(); });

test("an AI SDK tool call is answered with what addToolOutput takes, at every gate", async () => {
  const r = await p.evaluate(async () => {
    const { Coworkkit } = window.coworkkit;
    const runs = [];
    const ck = (window.ck = new Coworkkit({ confirmTimeoutMs: 5000, armDelayMs: 50 }));
    const object = (properties) => ({ type: "object", properties, required: Object.keys(properties) });
    ck.defineAction({ name: "getTask", description: "Read a task.", input: object({ taskId: { type: "string" } }), run: (a) => { runs.push("getTask"); return { task: a.taskId }; } });
    ck.defineAction({ name: "archiveThread", description: "Archive a thread.", control: "soft", input: object({ threadId: { type: "string" } }), run: (a) => { runs.push("archiveThread"); return { archived: a.threadId }; } });
    ck.defineAction({ name: "deleteProject", description: "Delete a project.", control: "hard", input: object({ projectId: { type: "string" } }), confirmationSummary: () => "Delete it?", run: () => { runs.push("deleteProject"); return "deleted"; } });
    // As its declared type has it, as the stream chunk onToolCall gets, as generateText's item.
    const out = {};
    out.open = await ck.handleToolCall({ toolCallId: "call_1", toolName: "getTask", input: { taskId: "t1" } });
    out.again = await ck.handleToolCall({ toolCallId: "call_1", toolName: "getTask", input: { taskId: "t1" } });
    // The chunk useChat's onToolCall is handed at run time.
    out.ask = await ck.handleToolCall({ type: "tool-input-available", toolCallId: "call_2", toolName: "archiveThread", input: { threadId: "x" }, dynamic: true });
    out.yes = await ck.handleToolCall({ type: "tool-call", toolCallId: "call_3", toolName: "archiveThread", input: { threadId: "x", confirmToken: out.ask.output.confirmToken } });
    out.bad = await ck.handleToolCall({ toolCallId: "call_4", toolName: "getTask", input: { taskId: 7 } });
    out.unknown = await ck.handleToolCall({ toolCallId: "call_5", toolName: "nope", input: {} });
    out.text = await ck.handleToolCall({ toolCallId: "call_6", toolName: "getTask", input: '{"taskId":"t6"}' });
    window.hard = null;
    ck.handleToolCall({ toolCallId: "call_7", toolName: "deleteProject", input: { projectId: "p1" } }).then((x) => { window.hard = x; });
    out.runs = runs;
    return out;
  });
  await waitCard(p, (s) => s.open);
  await confirmCard(p);
  r.hard = await p.evaluate(async () => {
    for (let i = 0; i < 100 && !window.hard; i++) await new Promise((f) => setTimeout(f, 20));
    window.ck.dispose();
    return window.hard;
  });
  const runs = r.runs;
  delete r.runs;

  assert.deepEqual(r.open, { tool: "getTask", toolCallId: "call_1", output: { gate: "fired", ok: true, result: { task: "t1" } } });
  assert.deepEqual(r.again, r.open, "the same toolCallId: the same outcome, not a second run");
  assert.equal(r.ask.tool, "archiveThread");
  assert.equal(r.ask.toolCallId, "call_2");
  assert.equal(r.ask.output.gate, "needs_confirmation");
  assert.match(r.ask.output.instruction, /call archiveThread again with the same arguments plus this confirmToken/);
  assert.deepEqual(r.yes, { tool: "archiveThread", toolCallId: "call_3", output: { gate: "confirmed", ok: true, result: { archived: "x" } } });
  assert.deepEqual([r.bad.toolCallId, r.bad.output.gate, r.bad.output.error.code], ["call_4", "rejected", "invalid_args"]);
  assert.deepEqual([r.unknown.tool, r.unknown.output.error.code], ["nope", "unknown_action"]);
  assert.deepEqual(r.text.output.result, { task: "t6" });
  assert.deepEqual(r.hard, { tool: "deleteProject", toolCallId: "call_7", output: { gate: "confirmed", ok: true, result: "deleted" } });
  assert.deepEqual(runs, ["getTask", "archiveThread", "getTask"]);

  // What addToolOutput makes of each answer: the call's tool part with state output-available.
  const inputs = { open: { taskId: "t1" }, again: { taskId: "t1" }, ask: { threadId: "x" }, yes: { threadId: "x" }, bad: { taskId: 7 }, unknown: {}, text: { taskId: "t6" }, hard: { projectId: "p1" } };
  const parts = Object.entries(r).map(([key, { tool, toolCallId, output }]) =>
    ({ type: `tool-${tool}`, toolCallId: `${toolCallId}-${key}`, state: "output-available", input: inputs[key], output }));
  const messages = [{ id: "m1", role: "user", parts: [{ type: "text", text: "Archive x." }] }, { id: "m2", role: "assistant", parts }];
  assert.deepEqual(await validateUIMessages({ messages }), messages);
});
