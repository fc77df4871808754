// A real `useChat` loop (issue 23): React, @ai-sdk/react and the AI SDK's own mock language
// model, bundled by esbuild from tests/e2e/fixtures/use-chat.js, with coworkkit wired as the
// README shows (onToolCall -> handleToolCall -> addToolOutput). Open, soft (the model asks, the
// user says yes, the token comes back in the model's next call) and hard (the card, a trusted
// click) tool calls, and the model's next step after each tool output. The bundle and the AI
// SDK do not depend on the engine, so this runs in Chromium only.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { launch, openFixture, waitFor, waitCard, clickPart, sleep, onlyIn, waitArmed } from "./harness.mjs";

const CHROMIUM = onlyIn(["chromium"], "the useChat loop is engine-independent (its tool calls run in every engine in ai-sdk.test.mjs)");
let env, p;
before(async () => {
  if (CHROMIUM.skip) return;
  const bundle = await build({
    entryPoints: [fileURLToPath(new URL("./fixtures/use-chat.js", import.meta.url))],
    bundle: true, write: false, format: "iife", platform: "browser", target: "es2022",
    define: { "process.env.NODE_ENV": '"production"' }, logLevel: "error",
  });
  env = await launch();
  p = await openFixture(env);
  await p.addScript({ content: bundle.outputFiles[0].text });
});
after(async () => { await env?.close(); });

/** Sends `text` and waits for the chat to settle with a new assistant text; returns that text. */
async function turn(text) {
  const before = await p.evaluate(() => window.chat.messages.length);
  await p.evaluate((t) => { window.chat.sendMessage({ text: t }); }, text);
  return lastText(before);
}
async function lastText(after, timeout = 8000) {
  return waitFor(p, (n) => {
    const { messages, status, error } = window.chat;
    if (error) return `error: ${error}`;
    const last = messages[messages.length - 1];
    if (status !== "ready" || messages.length <= n || last.role !== "assistant") return null;
    return last.parts.filter((x) => x.type === "text").map((x) => x.text).pop() ?? null;
  }, after, timeout);
}

test("useChat with the AI SDK's mock model: open, soft and hard tool calls through coworkkit, the loop going on after each", CHROMIUM, async () => {
  await p.evaluate(() => {
    const { Coworkkit } = window.coworkkit;
    const ck = (window.ck = new Coworkkit({ confirmTimeoutMs: 10000, armDelayMs: 50 }));
    window.runs = [];
    window.records = [];
    ck.on("record", (r) => window.records.push([r.action, r.gate, r.via]));
    const object = (properties) => ({ type: "object", properties, required: Object.keys(properties) });
    ck.defineAction({ name: "getTask", description: "Read a task.", readOnly: true, input: object({ taskId: { type: "string" } }), run: (a) => { window.runs.push("getTask"); return { title: `Task ${a.taskId}` }; } });
    ck.defineAction({ name: "archiveThread", description: "Archive a thread.", control: "soft", input: object({ threadId: { type: "string" } }), run: (a) => { window.runs.push("archiveThread"); return { archived: a.threadId }; } });
    ck.defineAction({ name: "deleteProject", description: "Delete a project.", control: "hard", input: object({ projectId: { type: "string" } }), confirmationSummary: (a) => `Delete ${a.projectId}?`, run: () => { window.runs.push("deleteProject"); return "deleted"; } });
    window.startChat(ck);
  });
  await waitFor(p, () => window.chat?.status === "ready");

  assert.equal(await turn("read t1"), 'getTask: fired {"title":"Task t1"}');

  const ask = await turn("archive t1");
  assert.match(ask, /^Shall I archiveThread\? \(token ckt_\w+\)$/);
  assert.deepEqual(await p.evaluate(() => window.runs), ["getTask"], "the soft call asked first");
  assert.equal(await turn("yes"), 'archiveThread: confirmed {"archived":"t1"}');

  const n = await p.evaluate(() => window.chat.messages.length);
  await p.evaluate(() => { window.chat.sendMessage({ text: "delete p1" }); });
  const card = await waitCard(p, (s) => s.open);
  assert.equal(card.summary, "Delete p1?");
  await waitArmed(p);
  await clickPart(p, "confirm");
  assert.equal(await lastText(n), 'deleteProject: confirmed "deleted"');

  const r = await p.evaluate(() => ({
    runs: window.runs,
    records: window.records,
    // Every tool part the chat holds, as addToolOutput left it.
    parts: window.chat.messages.flatMap((m) => m.parts).filter((x) => x.type.startsWith("tool-"))
      .map((x) => [x.type, x.state, x.output.gate]),
  }));
  assert.deepEqual(r.runs, ["getTask", "archiveThread", "deleteProject"]);
  assert.deepEqual(r.records, [["getTask", "fired", "tool_call"], ["archiveThread", "confirmed", "tool_call"], ["deleteProject", "confirmed", "tool_call"]]);
  assert.deepEqual(r.parts, [
    ["tool-getTask", "output-available", "fired"],
    ["tool-archiveThread", "output-available", "needs_confirmation"],
    ["tool-archiveThread", "output-available", "confirmed"],
    ["tool-deleteProject", "output-available", "confirmed"],
  ]);
  await p.evaluate(() => window.ck.dispose());
  assert.deepEqual(p.problems.splice(0), []);
});
