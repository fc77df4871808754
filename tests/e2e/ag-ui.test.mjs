// AG-UI (SPEC §14) through the real package. First, in every engine: tools("ag-ui") and an AG-UI
// tool call through handleToolCall(call, { format: "ag-ui" }), answered with a `tool` message,
// at each gate, and the options it refuses. Then, in Chromium: the README's AG-UI loop as
// written (its `readme-ag-ui` block, bundled by esbuild with @ag-ui/client; its agent's url
// mapped to the server), @ag-ui/client's HttpAgent against a small AG-UI server in this
// file (node http, server-sent events, a script instead of a model): each run that asks for a
// frontend tool streams TOOL_CALL_START / _ARGS / _END; the page gates the call through
// coworkkit (open; soft, whose run ends with the question and whose token comes back after the
// user's yes; hard, confirmed on the card by a trusted click); the next run carries the tool
// message, and the server checks it.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { launch, openFixture, waitFor, waitArmed, clickPart, onlyIn, TEST_TIMEOUT } from "./harness.mjs";

const CHROMIUM = onlyIn(["chromium"], "@ag-ui/client's HttpAgent is engine-independent (AG-UI's calls run in every engine in the first test)");
let env, p, server;
/** What the AG-UI server saw and judged, run by run. */
const runs = [];

before(async () => {
  env = await launch();
  p = await openFixture(env);
  if (CHROMIUM.skip) return;
  server = await agUiServer();
  // The README's block as written, but for the url of its agent; `ck` is the page's.
  const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
  const block = readme.match(/```js readme-ag-ui\n([\s\S]*?)```/)?.[1];
  assert.ok(block, "README block readme-ag-ui");
  const agentLine = 'new HttpAgent({ url: "/api/agent" })';
  assert.ok(block.includes(agentLine));
  const bundle = await build({
    stdin: {
      contents: `${block.replace(agentLine, "new HttpAgent({ url: window.agUiUrl })")}\nwindow.agUi = { turn, agent };\n`,
      resolveDir: fileURLToPath(new URL(".", import.meta.url)), loader: "js",
    },
    bundle: true, write: false, format: "iife", platform: "browser", target: "es2022", logLevel: "error",
  });
  await p.evaluate((url) => { window.agUiUrl = url; }, `http://127.0.0.1:${server.address().port}/`);
  await p.addScript({ content: bundle.outputFiles[0].text });
});
after(async () => {
  await env?.close();
  await new Promise((r) => (server ? server.close(r) : r()));
});

/** Defines the three actions on a fresh `window.ck`, in the page. */
function defineActions() {
  return p.evaluate(() => {
    const { Coworkkit } = window.coworkkit;
    window.ck?.dispose();
    const ck = (window.ck = new Coworkkit({ confirmTimeoutMs: 10000, armDelayMs: 50 }));
    window.runs = [];
    window.records = [];
    ck.on("record", (r) => window.records.push([r.action, r.gate, r.via]));
    const object = (properties) => ({ type: "object", properties, required: Object.keys(properties) });
    ck.defineAction({ name: "getTask", description: "Read a task.", readOnly: true, input: object({ taskId: { type: "string" } }), run: (a) => { window.runs.push("getTask"); return { title: `Task ${a.taskId}` }; } });
    ck.defineAction({ name: "archiveThread", description: "Archive a thread.", control: "soft", input: object({ threadId: { type: "string" } }), run: (a) => { window.runs.push("archiveThread"); return { archived: a.threadId }; } });
    ck.defineAction({ name: "deleteProject", description: "Delete a project.", control: "hard", input: object({ projectId: { type: "string" } }), confirmationSummary: (a) => `Delete ${a.projectId}?`, run: () => { window.runs.push("deleteProject"); return "deleted"; } });
  });
}

test("AG-UI tools and tool calls in the page: a tool message at every gate, a fresh id each time", { timeout: TEST_TIMEOUT }, async () => {
  await defineActions();
  const r = await p.evaluate(async () => {
    const ck = window.ck;
    const call = (id, name, args) => ({ id, type: "function", function: { name, arguments: JSON.stringify(args) } });
    const out = { tools: ck.tools("ag-ui"), chatTools: ck.tools("openai").map((t) => t.function) };
    out.open = await ck.handleToolCall(call("tc_1", "getTask", { taskId: "t1" }), { format: "ag-ui" });
    out.again = await ck.handleToolCall(call("tc_1", "getTask", { taskId: "t1" }), { format: "ag-ui" });
    out.ask = await ck.handleToolCall(call("tc_2", "archiveThread", { threadId: "x" }), { format: "ag-ui" });
    const token = JSON.parse(out.ask.content).confirmToken;
    out.yes = await ck.handleToolCall(call("tc_3", "archiveThread", { threadId: "x", confirmToken: token }), { format: "ag-ui" });
    out.bad = await ck.handleToolCall(call("tc_4", "getTask", { taskId: 4 }), { format: "ag-ui" });
    out.notAgUi = await ck.handleToolCall({ type: "tool_use", id: "tu_5", name: "getTask", input: { taskId: "t5" } }, { format: "ag-ui" });
    out.unnamed = await ck.handleToolCall(call("tc_6", "getTask", { taskId: "t6" }));
    out.throws = [];
    for (const options of [{ format: "openai" }, { format: 1 }, "ag-ui", 7]) {
      try { ck.handleToolCall(call("tc_7", "getTask", { taskId: "t7" }), options); out.throws.push(null); }
      catch (e) { out.throws.push([e.code, e.message]); }
    }
    out.withUndefined = await ck.handleToolCall(call("tc_8", "getTask", { taskId: "t8" }), { format: undefined });
    out.runs = window.runs;
    return out;
  });
  // The same tools the other formats list: OpenAI Chat's functions, word for word.
  assert.deepEqual(r.tools, r.chatTools);
  assert.deepEqual(r.tools.map((t) => Object.keys(t)), [["name", "description", "parameters"], ["name", "description", "parameters"], ["name", "description", "parameters"]]);
  assert.deepEqual(Object.keys(r.tools[1].parameters.properties), ["threadId", "confirmToken", "decline", "declineReason"]);

  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
  for (const key of ["open", "again", "ask", "yes", "bad", "notAgUi"]) {
    assert.deepEqual(Object.keys(r[key]), ["id", "role", "toolCallId", "content"], key);
    assert.equal(r[key].role, "tool", key);
    assert.match(r[key].id, uuid, key);
  }
  assert.deepEqual(JSON.parse(r.open.content), { gate: "fired", ok: true, result: { title: "Task t1" } });
  assert.equal(r.open.toolCallId, "tc_1");
  assert.equal(r.again.content, r.open.content, "the same call id: the same outcome, not a second run");
  assert.notEqual(r.again.id, r.open.id, "but a fresh message");
  assert.equal(JSON.parse(r.ask.content).gate, "needs_confirmation");
  assert.match(JSON.parse(r.ask.content).instruction, /call archiveThread again with the same arguments plus this confirmToken/);
  assert.deepEqual([r.yes.toolCallId, JSON.parse(r.yes.content).gate], ["tc_3", "confirmed"]);
  assert.deepEqual([JSON.parse(r.bad.content).gate, JSON.parse(r.bad.content).error.code], ["rejected", "invalid_args"]);
  const notAgUi = JSON.parse(r.notAgUi.content);
  assert.deepEqual([r.notAgUi.toolCallId, notAgUi.gate, notAgUi.error.code], ["tu_5", "rejected", "invalid_args"]);
  assert.match(notAgUi.error.message, /not an AG-UI tool call/);
  assert.deepEqual(r.unnamed, { role: "tool", tool_call_id: "tc_6", content: '{"gate":"fired","ok":true,"result":{"title":"Task t6"}}' },
    "unnamed, the same shape is OpenAI Chat's and answered as its");
  assert.equal(r.withUndefined.tool_call_id, "tc_8", "format: undefined is no format: the shape decides");
  assert.deepEqual(r.throws.map((t) => t?.[0]), ["invalid_spec", "invalid_spec", "invalid_spec", "invalid_spec"]);
  assert.match(r.throws[0][1], /format "openai" is not one a call needs: only "ag-ui"/);
  assert.match(r.throws[2][1], /options must be an object, such as \{ format: "ag-ui" \}/);
  assert.deepEqual(r.runs, ["getTask", "archiveThread", "getTask", "getTask"], "nothing ran for a refused call or refused options");
  await p.evaluate(() => window.ck.dispose());
});

// ---- The AG-UI server: server-sent events, a script for a model ---------------------------

/**
 * Serves POST / (RunAgentInput in, AG-UI events out as `data: {json}` server-sent events) from
 * another origin, answering the CORS preflight. The script reads the last message: a user's
 * words ask for a tool ("read t1", "archive x1", "delete p1"; "yes" calls archiveThread again
 * with the token of the last needs_confirmation answer); a tool message is judged (see
 * `judge`), then answered with a sentence: the question for needs_confirmation, else the tool,
 * its gate and its result.
 */
function agUiServer() {
  let calls = 0;
  const issued = new Map(); // tool call id -> tool name
  return new Promise((resolve) => {
    const http = createServer((req, res) => {
      res.setHeader("Access-Control-Allow-Origin", "*");
      res.setHeader("Access-Control-Allow-Headers", "content-type, accept");
      res.setHeader("Access-Control-Allow-Methods", "POST");
      if (req.method === "OPTIONS") return res.writeHead(204).end();
      const chunks = [];
      req.on("data", (c) => chunks.push(c));
      req.on("end", () => {
        const input = JSON.parse(Buffer.concat(chunks).toString("utf8"));
        const run = { accept: req.headers.accept, tools: input.tools, last: input.messages.at(-1), problems: [], events: [] };
        runs.push(run);
        res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
        const send = (event) => { run.events.push(event.type); res.write(`data: ${JSON.stringify(event)}\n\n`); };
        const { threadId, runId } = input;
        send({ type: "RUN_STARTED", threadId, runId });
        const toolCall = (name, args) => {
          const toolCallId = `tc_${++calls}`;
          issued.set(toolCallId, name);
          const messageId = `m_${toolCallId}`;
          send({ type: "TOOL_CALL_START", toolCallId, toolCallName: name, parentMessageId: messageId });
          // The arguments in two deltas, as a model streams them.
          const text = JSON.stringify(args);
          send({ type: "TOOL_CALL_ARGS", toolCallId, delta: text.slice(0, 5) });
          send({ type: "TOOL_CALL_ARGS", toolCallId, delta: text.slice(5) });
          send({ type: "TOOL_CALL_END", toolCallId });
        };
        const say = (text) => {
          const messageId = `m_text_${runs.length}`;
          send({ type: "TEXT_MESSAGE_START", messageId, role: "assistant" });
          send({ type: "TEXT_MESSAGE_CONTENT", messageId, delta: text });
          send({ type: "TEXT_MESSAGE_END", messageId });
        };
        const last = run.last;
        if (last.role === "tool") {
          const outcome = judge(last, input, issued, run.problems);
          run.outcome = outcome;
          const name = issued.get(last.toolCallId);
          if (outcome?.gate === "needs_confirmation") say(`Shall I ${name}? (token ${outcome.confirmToken})`);
          else say(`${name}: ${outcome?.gate} ${JSON.stringify(outcome?.result)}`);
        } else if (last.role === "user" && last.content === "read t1") toolCall("getTask", { taskId: "t1" });
        else if (last.role === "user" && last.content === "archive x1") toolCall("archiveThread", { threadId: "x1" });
        else if (last.role === "user" && last.content === "delete p1") toolCall("deleteProject", { projectId: "p1" });
        else if (last.role === "user" && last.content === "yes") {
          const asked = input.messages.filter((m) => m.role === "tool").map((m) => JSON.parse(m.content)).findLast((o) => o.gate === "needs_confirmation");
          toolCall("archiveThread", { threadId: "x1", confirmToken: asked?.confirmToken });
        } else say("I have nothing to do.");
        send({ type: "RUN_FINISHED", threadId, runId });
        res.end();
      });
    });
    http.listen(0, "127.0.0.1", () => resolve(http));
  });
}

/**
 * A tool message as the server must find it in the next run: `{ id, role: "tool", toolCallId,
 * content }`, its id a fresh one, its toolCallId one this server issued, right after the
 * assistant message that made that call, its content the compact outcome as JSON. Writes what is
 * wrong into `problems`; returns the outcome.
 */
function judge(message, input, issued, problems) {
  const keys = Object.keys(message).sort().join(",");
  if (keys !== "content,id,role,toolCallId") problems.push(`fields: ${keys}`);
  if (!issued.has(message.toolCallId)) problems.push(`unknown toolCallId ${message.toolCallId}`);
  const ids = input.messages.map((m) => m.id);
  if (new Set(ids).size !== ids.length) problems.push("a message id is used twice");
  const at = input.messages.indexOf(message);
  const before = input.messages[at - 1];
  if (before?.role !== "assistant" || !before.toolCalls?.some((c) => c.id === message.toolCallId)) {
    problems.push("not right after the assistant message that made the call");
  }
  const call = before?.toolCalls?.find((c) => c.id === message.toolCallId);
  if (call && (call.type !== "function" || call.function.name !== issued.get(message.toolCallId))) problems.push("the call changed");
  try {
    const outcome = JSON.parse(message.content);
    if (typeof outcome.gate !== "string" || typeof outcome.ok !== "boolean") problems.push("content without gate and ok");
    return outcome;
  } catch {
    problems.push("content is not JSON");
    return undefined;
  }
}

test("@ag-ui/client's HttpAgent against an AG-UI server: open, soft and hard frontend tools gated by coworkkit, each tool message carried by the next run", CHROMIUM, async () => {
  await defineActions();
  const turn = (text) => p.evaluate((t) => window.agUi.turn(t), text);

  assert.equal(await turn("read t1"), 'getTask: fired {"title":"Task t1"}');
  // The run that asked carried the manifest; the next one carried the answer.
  assert.deepEqual(runs[0].tools.map((t) => t.name), ["getTask", "archiveThread", "deleteProject"]);
  assert.match(runs[0].tools[1].description, /This asks first/);
  assert.ok("confirmToken" in runs[0].tools[1].parameters.properties);
  assert.equal(runs[0].accept, "text/event-stream");
  assert.deepEqual(runs[0].events, ["RUN_STARTED", "TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_ARGS", "TOOL_CALL_END", "RUN_FINISHED"]);
  assert.equal(runs[1].last.role, "tool");
  assert.equal(runs[1].last.toolCallId, "tc_1");

  const ask = await turn("archive x1");
  assert.match(ask, /^Shall I archiveThread\? \(token ckt_\w+\)$/);
  assert.deepEqual(await p.evaluate(() => window.runs), ["getTask"], "the soft call asked first");
  assert.equal(await turn("yes"), 'archiveThread: confirmed {"archived":"x1"}');

  const hard = p.evaluate(() => window.agUi.turn("delete p1"));
  const card = await waitArmed(p);
  assert.equal(card.summary, "Delete p1?");
  await clickPart(p, "confirm");
  assert.equal(await hard, 'deleteProject: confirmed "deleted"');

  const tooled = runs.filter((r) => r.last.role === "tool");
  assert.deepEqual(tooled.map((r) => [r.last.toolCallId, r.outcome.gate]),
    [["tc_1", "fired"], ["tc_2", "needs_confirmation"], ["tc_3", "confirmed"], ["tc_4", "confirmed"]]);
  assert.deepEqual(runs.flatMap((r) => r.problems), [], "every tool message as the server expects it");
  const r = await p.evaluate(() => ({ runs: window.runs, records: window.records, messages: window.agUi.agent.messages.map((m) => m.role) }));
  assert.deepEqual(r.runs, ["getTask", "archiveThread", "deleteProject"]);
  assert.deepEqual(r.records, [["getTask", "fired", "tool_call"], ["archiveThread", "confirmed", "tool_call"], ["deleteProject", "confirmed", "tool_call"]]);
  assert.deepEqual(r.messages, ["user", "assistant", "tool", "assistant", "user", "assistant", "tool", "assistant", "user", "assistant", "tool", "assistant", "user", "assistant", "tool", "assistant"]);
});
