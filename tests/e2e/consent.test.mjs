// SPEC §12 against real input, in every engine: a "no" with the person's reason (typed on the
// card with the driver's keyboard, or relayed by the app or a soft decline) reaches the agent's
// outcome, every tool-result shape and the record's note, and nothing the agent sends puts words
// there; "Cancel all N" cancels every waiting card with one trusted click; a grant is made only
// inside a person's gesture, lets matching soft calls through, and ends on expiry, maxUses,
// revoke (also the Watch panel's Revoke) and dispose.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { launch, openFixture, onPart, clickPart, click, cardState, waitCard, waitFor, sleep, TEST_TIMEOUT, waitArmed, confirmCard } from "./harness.mjs";

let env;
before(async () => { env = await launch(); });
after(async () => { await env?.close(); });

/**
 * A page with `window.ck` (records in `window.records`, `grants` events in `window.grantEvents`,
 * runs counted in `window.runs`), a hard `wipeDrive`, `dropTable`, `purgeLogs`, a soft `archive`,
 * an open `readNote`, and a page button `#allow` whose click handler calls `ck.grant` with
 * `window.grantRequest` (its result or error code in `window.granted`). `window.call(call)`
 * invokes and keeps the outcome in `window.outcomes[key]`; `window.tool(call)` does the same
 * through `handleToolCall`.
 */
async function page(options = {}) {
  const p = await openFixture(env);
  await p.evaluate((options) => {
    const { Coworkkit } = window.coworkkit;
    window.records = [];
    window.grantEvents = [];
    window.runs = {};
    window.outcomes = {};
    window.ck = new Coworkkit({ armDelayMs: 250, onActionRecord: (r) => window.records.push(r), ...options });
    window.ck.on("grants", (list) => window.grantEvents.push(list.map((g) => [g.id, g.uses])));
    const run = (name) => (args) => { window.runs[name] = (window.runs[name] ?? 0) + 1; return { ran: name, args }; };
    for (const name of ["wipeDrive", "dropTable", "purgeLogs"]) {
      window.ck.defineAction({ name, description: `The ${name} action.`, control: "hard", run: run(name) });
    }
    window.ck.defineAction({ name: "archive", description: "Archive a thread.", control: "soft", run: run("archive") });
    window.ck.defineAction({ name: "readNote", description: "Read a note.", control: "open", run: run("readNote") });
    let n = 0;
    const keep = (promise) => {
      const key = `k${n++}`;
      window.outcomes[key] = null;
      promise.then((o) => { window.outcomes[key] = o; });
      return key;
    };
    window.call = (call) => keep(window.ck.invoke(call));
    window.tool = (call) => keep(window.ck.handleToolCall(call));
    window.grantRequest = ["archive", {}];
    const allow = document.createElement("button");
    allow.id = "allow";
    allow.textContent = "Allow archiving for a while";
    allow.addEventListener("click", () => {
      window.activeInHandler = navigator.userActivation?.isActive ?? null;
      try { window.granted = window.ck.grant(...window.grantRequest); } catch (e) { window.granted = { code: e.code, isError: e instanceof Error }; }
    });
    document.body.append(allow);
    const arm = document.createElement("button");
    arm.id = "arm";
    arm.textContent = "Let the agent help";
    arm.addEventListener("click", () => window.ck.armHandMode());
    document.body.append(arm);
  }, options);
  return p;
}

async function waitOutcome(p, key, timeout = 8000) {
  const until = Date.now() + timeout;
  while (Date.now() < until) {
    const o = await p.evaluate((key) => window.outcomes[key], key);
    if (o) return o;
    await sleep(25);
  }
  throw new Error(`no outcome for ${key}`);
}
const records = (p) => p.evaluate(() => window.records);

/** Types `text` into the card's reason field with the driver's real keyboard. */
async function typeReason(p, text) {
  await clickPart(p, "reason");
  await waitFor(p, () => true);
  await p.keyboard.type(text);
  const typed = await onPart(p, "reason", function () { return this.value; });
  assert.equal(typed, text, "the field holds what the keyboard typed");
}

/** Makes a grant with a real click on `#allow`; returns what the handler got. */
async function grantByClick(p, action, options) {
  await p.evaluate(([action, options]) => { window.grantRequest = [action, options]; window.granted = undefined; }, [action, options]);
  await click(p, "#allow");
  return waitFor(p, () => window.granted);
}

const REASON = `Not that drive: it holds the "client" backups`;

test("a reason typed on the card reaches the outcome, its instruction and the record's note", { timeout: TEST_TIMEOUT }, async () => {
  const p = await page();
  const key = await p.evaluate(() => window.call({ name: "wipeDrive", args: { drive: "d1" }, callId: "c1" }));
  const shown = await waitCard(p, (s) => s.open);
  assert.equal(shown.focused, "cancel", "initial focus stays on Cancel");
  const label = await onPart(p, "reason-label", function () { return this.textContent; });
  assert.equal(label, "Tell the assistant why (optional)");
  await typeReason(p, REASON);
  await clickPart(p, "cancel");
  const o = await waitOutcome(p, key);
  assert.equal(o.gate, "cancelled");
  assert.equal(o.ok, false);
  assert.equal(o.error.code, "declined");
  assert.equal(o.error.message, `the user cancelled this call, saying: "${REASON}"`);
  assert.match(o.instruction, /the user said no.*Do not retry/);
  const [r] = await records(p);
  assert.deepEqual([r.gate, r.reason, r.note, r.outcome.status, r.assurance], ["cancelled", "cancelled_by_user", REASON, "not_run", "none"]);
  assert.equal(await p.evaluate(() => window.runs.wipeDrive ?? 0), 0);

  // The next card's field is empty: the words went with their card only.
  const second = await p.evaluate(() => window.call({ name: "wipeDrive", args: { drive: "d2" } }));
  await waitCard(p, (s) => s.open);
  assert.equal(await onPart(p, "reason", function () { return this.value; }), "");
  // Enter in the field sends it: a cancel, never a confirm, even after the arm delay.
  await waitArmed(p);
  await typeReason(p, "wrong drive");
  await p.keyboard.press("Enter");
  const o2 = await waitOutcome(p, second);
  assert.deepEqual([o2.gate, o2.error.code], ["cancelled", "declined"]);
  assert.match(o2.error.message, /"wrong drive"/);
  // Escape sends it too; without words, a cancel is a plain cancel.
  const third = await p.evaluate(() => window.call({ name: "wipeDrive", args: { drive: "d3" } }));
  await waitCard(p, (s) => s.open);
  await typeReason(p, "later");
  await p.keyboard.press("Escape");
  assert.match((await waitOutcome(p, third)).error.message, /"later"/);
  const fourth = await p.evaluate(() => window.call({ name: "wipeDrive", args: { drive: "d4" } }));
  await waitCard(p, (s) => s.open);
  await clickPart(p, "cancel");
  const o4 = await waitOutcome(p, fourth);
  assert.equal(o4.error.code, "cancelled_by_user");
  assert.match(o4.instruction, /cancelled\. Do not retry/);
  assert.deepEqual((await records(p)).map((r) => r.note ?? null), [REASON, "wrong drive", "later", null]);
  assert.equal(await p.evaluate(() => window.runs.wipeDrive ?? 0), 0);
  assert.deepEqual(p.problems, []);
});

test("the person's reason reaches every tool-result format: OpenAI Chat, Responses, Anthropic, MCP, the AI SDK and WebMCP", { timeout: TEST_TIMEOUT * 2 }, async () => {
  const p = await page();
  await p.evaluate(() => {
    window.webmcpTools = {};
    window.ck.exposeToModelContext({ modelContext: { registerTool: (tool) => { window.webmcpTools[tool.name] = tool; } } });
  });
  const shapes = {
    openai: { id: "oc_1", type: "function", function: { name: "wipeDrive", arguments: "{\"drive\":\"a\"}" } },
    responses: { type: "function_call", call_id: "or_1", name: "wipeDrive", arguments: "{\"drive\":\"b\"}" },
    anthropic: { type: "tool_use", id: "an_1", name: "wipeDrive", input: { drive: "c" } },
    mcp: { name: "wipeDrive", arguments: { drive: "d" } },
    aisdk: { toolCallId: "ai_1", toolName: "wipeDrive", input: { drive: "e" } },
  };
  const contents = {};
  for (const [shape, call] of Object.entries(shapes)) {
    const key = await p.evaluate((call) => window.tool(call), call);
    await waitCard(p, (s) => s.open);
    await typeReason(p, `no ${shape}`);
    await clickPart(p, "cancel");
    const answer = await waitOutcome(p, key);
    contents[shape] = shape === "mcp" ? answer.structuredContent
      : shape === "aisdk" ? answer.output
      : JSON.parse(answer.content ?? answer.output);
    if (shape === "mcp") assert.deepEqual(JSON.parse(answer.content[0].text), answer.structuredContent);
    if (shape === "anthropic") assert.equal(answer.is_error, true);
    await waitCard(p, (s) => !s.open);
  }
  const webmcp = await p.evaluate(() => {
    const key = "webmcp";
    window.outcomes[key] = null;
    window.webmcpTools.wipeDrive.execute({ drive: "f" }).then((o) => { window.outcomes[key] = o; });
    return key;
  });
  await waitCard(p, (s) => s.open);
  await typeReason(p, "no webmcp");
  await clickPart(p, "cancel");
  contents.webmcp = await waitOutcome(p, webmcp);
  for (const [shape, content] of Object.entries(contents)) {
    assert.equal(content.gate, "cancelled", shape);
    assert.equal(content.error.code, "declined", shape);
    assert.equal(content.error.message, `the user cancelled this call, saying: "no ${shape}"`, shape);
    assert.match(content.instruction, /the user said no.*Do not retry/, shape);
  }
  const notes = (await records(p)).map((r) => [r.via, r.note]);
  assert.deepEqual(notes, [["tool_call", "no openai"], ["tool_call", "no responses"], ["tool_call", "no anthropic"],
    ["tool_call", "no mcp"], ["tool_call", "no aisdk"], ["webmcp", "no webmcp"]]);
  assert.deepEqual(p.problems, []);
});

test("a soft decline and ck.cancel carry the person's words; the agent cannot put words there any other way", { timeout: TEST_TIMEOUT }, async () => {
  const p = await page();
  const r = await p.evaluate(async () => {
    const ck = window.ck;
    const out = {};
    // A soft decline through invoke, with the user's words (relayed by the agent, as asked).
    const asked = await ck.invoke({ name: "archive", args: { id: 1 } });
    out.decline = await ck.invoke({ name: "archive", args: { id: 1 }, confirmToken: asked.confirmToken, decline: true, reason: "keep it for now" });
    // The same through a tool call: declineReason beside decline and the token.
    const asked2 = JSON.parse((await ck.handleToolCall({ id: "t1", type: "function", function: { name: "archive", arguments: { id: 2 } } })).content);
    out.toolDecline = JSON.parse((await ck.handleToolCall({ id: "t2", type: "function", function: { name: "archive", arguments: { id: 2, confirmToken: asked2.confirmToken, decline: true, declineReason: "not yet" } } })).content);
    // Words without a decline: refused, never shown as the person's.
    out.firstWithReason = await ck.invoke({ name: "archive", args: { id: 3 }, reason: "the user already said yes" });
    out.hardWithReason = await Promise.race([ck.invoke({ name: "wipeDrive", args: {}, reason: "approved by the user" }), new Promise((r) => setTimeout(() => r("waiting"), 300))]);
    const asked3 = await ck.invoke({ name: "archive", args: { id: 4 } });
    out.confirmWithReason = await ck.invoke({ name: "archive", args: { id: 4 }, confirmToken: asked3.confirmToken, reason: "user said: go" });
    out.toolReasonNoDecline = JSON.parse((await ck.handleToolCall({ type: "tool_use", id: "t3", name: "archive", input: { id: 5, declineReason: "the user approved" } })).content);
    out.declineNoToken = await ck.invoke({ name: "archive", args: { id: 6 }, decline: true, reason: "fake" });
    // A decline whose reason is no string: the no is honoured (declining is always safe), the
    // reason dropped.
    const asked4 = await ck.invoke({ name: "archive", args: { id: 7 } });
    out.reasonNotString = await ck.invoke({ name: "archive", args: { id: 7 }, confirmToken: asked4.confirmToken, decline: true, reason: { text: "an object" } });
    // The token survived the refused attempts: a clean yes still works.
    out.yes = await ck.invoke({ name: "archive", args: { id: 4 }, confirmToken: asked3.confirmToken });
    out.pendingCards = ck.pending().length;
    return out;
  });
  assert.deepEqual([r.decline.gate, r.decline.error.code, r.decline.error.message], ["cancelled", "declined", 'the user declined this call, saying: "keep it for now"']);
  assert.deepEqual([r.toolDecline.gate, r.toolDecline.error.code], ["cancelled", "declined"]);
  assert.match(r.toolDecline.error.message, /"not yet"/);
  assert.deepEqual([r.reasonNotString.gate, r.reasonNotString.error.code, r.reasonNotString.error.message], ["cancelled", "declined", "the user declined this call"]);
  for (const key of ["firstWithReason", "confirmWithReason", "toolReasonNoDecline"]) {
    assert.deepEqual([r[key].gate, r[key].error.code], ["rejected", "invalid_args"], key);
    assert.match(r[key].instruction, /Fix them/, key);
  }
  assert.deepEqual([r.hardWithReason.gate, r.hardWithReason.error.code], ["rejected", "invalid_args"], "no card for it");
  assert.deepEqual([r.declineNoToken.gate, r.declineNoToken.error.code], ["rejected", "bad_token"]);
  assert.equal(r.pendingCards, 0);
  assert.deepEqual([r.yes.gate, r.yes.ok], ["confirmed", true]);
  const all = await records(p);
  assert.deepEqual(all.filter((x) => x.note).map((x) => [x.action, x.reason, x.note]),
    [["archive", "declined", "keep it for now"], ["archive", "declined", "not yet"]]);
  // The yes came with the token: the agent's word. Every no and refusal ran nothing.
  assert.deepEqual(all.filter((x) => x.assurance !== "none").map((x) => [x.gate, x.args.id, x.assurance]), [["confirmed", 4, "agent"]]);
  const text = JSON.stringify(all);
  for (const words of ["already said yes", "approved by the user", "user said: go", "the user approved", "fake", "an object"]) {
    assert.ok(!text.includes(words), `the agent's words reached a record: ${words}`);
  }

  // The app relays a person's words with ck.cancel.
  const key = await p.evaluate(() => window.call({ name: "dropTable", args: {} }));
  await waitCard(p, (s) => s.open);
  const id = await p.evaluate(() => window.ck.pending()[0].id);
  assert.equal(await p.evaluate((id) => window.ck.cancel(id, { reason: "  not during\nbusiness hours " }), id), true);
  const o = await waitOutcome(p, key);
  assert.deepEqual([o.error.code, o.error.message], ["declined", 'the app cancelled this call, saying: "not during business hours"']);
  const last = (await records(p)).at(-1);
  assert.deepEqual([last.reason, last.note], ["cancelled_by_app", "not during business hours"]);
  assert.deepEqual(p.problems, []);
});

test("Cancel all N: one trusted click cancels every waiting card, one record each; a script's click does nothing; nothing confirms two cards", { timeout: TEST_TIMEOUT }, async () => {
  const p = await page();
  const keys = [];
  for (const name of ["wipeDrive", "dropTable", "purgeLogs"]) keys.push(await p.evaluate((name) => window.call({ name, args: {} }), name));
  await waitCard(p, (s) => s.open && s.position === "1 of 3");
  assert.equal(await onPart(p, "cancel-all", function () { return this.hidden ? null : this.textContent; }), "Cancel all 3");
  const words = await onPart(p, "card", function () { return this.textContent; });
  assert.ok(!/confirm all/i.test(words), "there is no Confirm all");
  await onPart(p, "cancel-all", function () { this.click(); });
  await sleep(200);
  assert.equal((await p.evaluate(() => window.ck.pending())).length, 3, "a script's click cancels nothing");
  await typeReason(p, "none of these today");
  await clickPart(p, "cancel-all");
  for (const key of keys) {
    const o = await waitOutcome(p, key);
    assert.deepEqual([o.gate, o.error.code], ["cancelled", "declined"]);
  }
  await waitCard(p, (s) => !s.open);
  assert.deepEqual(await p.evaluate(() => window.ck.pending()), []);
  const rs = await records(p);
  assert.deepEqual(rs.map((r) => [r.action, r.gate, r.reason, r.note, r.assurance]), [
    ["wipeDrive", "cancelled", "cancelled_by_user", "none of these today", "none"],
    ["dropTable", "cancelled", "cancelled_by_user", "none of these today", "none"],
    ["purgeLogs", "cancelled", "cancelled_by_user", "none of these today", "none"],
  ]);

  // One click on Confirm confirms one card: the next card shows, re-armed, and waits.
  const a = await p.evaluate(() => window.call({ name: "wipeDrive", args: { n: 1 } }));
  const b = await p.evaluate(() => window.call({ name: "dropTable", args: { n: 2 } }));
  await waitCard(p, (s) => s.open && s.position === "1 of 2");
  await confirmCard(p);
  assert.equal((await waitOutcome(p, a)).gate, "confirmed");
  const confirmed = (await records(p)).filter((r) => r.gate === "confirmed");
  assert.deepEqual(confirmed.map((r) => [r.action, r.assurance]), [["wipeDrive", "input"]], "a trusted click on Confirm: input");
  await waitCard(p, (s) => s.open && s.title === "Drop table");
  await sleep(300);
  assert.equal(await p.evaluate((b) => window.outcomes[b], b), null, "the second card still waits");
  assert.deepEqual(await p.evaluate(() => [window.runs.wipeDrive ?? 0, window.runs.dropTable ?? 0]), [1, 0]);
  // The app's cancelAll: one action's cards, then the rest, with a reason.
  const c = await p.evaluate(() => window.call({ name: "purgeLogs", args: {} }));
  await waitFor(p, () => window.ck.pending().length === 2);
  assert.equal(await p.evaluate(() => window.ck.cancelAll({ action: "purgeLogs", reason: "not now" })), 1);
  assert.equal((await waitOutcome(p, c)).error.code, "declined");
  assert.equal(await p.evaluate(() => window.ck.cancelAll()), 1);
  assert.equal((await waitOutcome(p, b)).error.code, "cancelled_by_app");
  assert.equal(await p.evaluate(() => window.ck.cancelAll()), 0);
  assert.equal((await cardState(p)).open, false);
  assert.deepEqual(p.problems, []);
});

test("a grant is made only inside a person's gesture and only for a soft action", { timeout: TEST_TIMEOUT }, async () => {
  const p = await page();
  // Outside a gesture (once earlier activation has lapsed): needs_user_activation.
  const until = Date.now() + 10000;
  while (await p.evaluateNoGesture(() => navigator.userActivation.isActive)) {
    if (Date.now() > until) throw new Error("user activation never lapsed");
    await sleep(200);
  }
  const outside = await p.evaluateNoGesture(() => { try { window.ck.grant("archive"); return "granted"; } catch (e) { return [e instanceof Error, e.code]; } });
  assert.deepEqual(outside, [true, "needs_user_activation"]);
  assert.deepEqual(await p.evaluateNoGesture(() => window.ck.grants()), []);
  // Inside a trusted click: hard and open actions never, bad options never, soft yes.
  for (const [action, options, code] of [
    ["wipeDrive", {}, "invalid_grant"],
    ["readNote", {}, "invalid_grant"],
    ["ghost", {}, "invalid_grant"],
    ["archive", { ttlMs: 86_400_001 }, "invalid_grant"],
    ["archive", { maxUses: 0 }, "invalid_grant"],
    ["archive", { match: [1] }, "invalid_grant"],
  ]) {
    const got = await grantByClick(p, action, options);
    assert.deepEqual(got, { code, isError: true }, `${action} ${JSON.stringify(options)}`);
  }
  assert.equal(await p.evaluate(() => window.activeInHandler), true, "the clicks were gestures");
  const made = await grantByClick(p, "archive", { ttlMs: 60_000, maxUses: 2, match: { box: "inbox" } });
  assert.equal(made.action, "archive");
  assert.match(made.id, /^ckg_\d+$/);
  assert.deepEqual([made.maxUses, made.uses, made.match], [2, 0, { box: "inbox" }]);
  assert.ok(Math.abs(made.expiresAt - made.createdAt - 60_000) < 1);
  const listed = await p.evaluate(() => window.ck.grants().map((g) => g.id));
  assert.deepEqual(listed, [made.id]);
  assert.deepEqual(p.problems, []);
});

test("a grant lets matching soft calls fire with its id in their records, until maxUses, revoke, expiry and dispose end it", { timeout: TEST_TIMEOUT }, async () => {
  const p = await page();
  const made = await grantByClick(p, "archive", { maxUses: 2, match: { box: "inbox" } });
  const r = await p.evaluate(async () => {
    const ck = window.ck;
    return {
      first: await ck.invoke({ name: "archive", args: { box: "inbox", id: 1 } }),
      other: await ck.invoke({ name: "archive", args: { box: "spam", id: 2 } }),
      tool: JSON.parse((await ck.handleToolCall({ type: "tool_use", id: "g1", name: "archive", input: { id: 3, box: "inbox" } })).content),
      spent: await ck.invoke({ name: "archive", args: { box: "inbox", id: 4 } }),
      grants: ck.grants(),
    };
  });
  assert.deepEqual([r.first.gate, r.first.ok, r.first.confirmToken], ["fired", true, undefined]);
  assert.equal(r.other.gate, "needs_confirmation", "not covered: asks first");
  assert.deepEqual([r.tool.gate, r.tool.ok], ["fired", true]);
  assert.equal(r.spent.gate, "needs_confirmation", "maxUses spent");
  assert.deepEqual(r.grants, []);
  const fired = (await records(p)).filter((x) => x.gate === "fired");
  assert.deepEqual(fired.map((x) => [x.action, x.grant, x.via, x.assurance]), [["archive", made.id, "invoke", "grant"], ["archive", made.id, "tool_call", "grant"]]);
  assert.equal(await p.evaluate(() => window.runs.archive), 2);

  // Revoke ends one.
  const second = await grantByClick(p, "archive", {});
  assert.equal(await p.evaluate((id) => window.ck.revokeGrant(id), second.id), true);
  assert.equal(await p.evaluate((id) => window.ck.revokeGrant(id), second.id), false);
  assert.equal((await p.evaluate(() => window.ck.invoke({ name: "archive", args: { id: 5 } }))).gate, "needs_confirmation");
  // Expiry ends one (the SDK's own clock; the host tests use the test's).
  const short = await grantByClick(p, "archive", { ttlMs: 700 });
  assert.equal((await p.evaluate(() => window.ck.invoke({ name: "archive", args: { id: 6 } }))).gate, "fired");
  await sleep(900);
  assert.equal((await p.evaluate(() => window.ck.invoke({ name: "archive", args: { id: 7 } }))).gate, "needs_confirmation");
  assert.deepEqual(await p.evaluate(() => window.ck.grants()), []);
  // The grants event followed each change, the expiry included.
  const events = await p.evaluate(() => window.grantEvents);
  assert.deepEqual(events.at(-1), []);
  assert.ok(events.some((list) => list.length === 1 && list[0][0] === short.id && list[0][1] === 1));
  // Dispose ends every grant.
  await grantByClick(p, "archive", {});
  assert.equal((await p.evaluate(() => window.ck.grants())).length, 1);
  await p.evaluate(() => window.ck.dispose());
  assert.deepEqual(await p.evaluate(() => window.ck.grants()), []);
  assert.deepEqual(p.problems, []);
});

test("an agent's element action clicking the app's grant button, inside a person's earlier activation, makes no grant", { timeout: TEST_TIMEOUT }, async () => {
  const p = await page();
  await p.evaluate(() => {
    window.ck.defineAction({ name: "pressAllow", description: "Press Allow.", element: "#allow", operation: "click" });
    // The agent's call comes from the page's own loop a moment after the person's click (here
    // a timer), while the activation that click left is still live: not from the driver, whose
    // script evaluation in Firefox runs without the page's activation.
    window.agentTurn = null;
    document.querySelector("#arm").addEventListener("click", () => {
      setTimeout(async () => {
        window.granted = undefined;
        window.activeInHandler = undefined;
        const o = await window.ck.invoke({ name: "pressAllow" });
        window.agentTurn = { gate: o.gate, inHandler: window.activeInHandler, granted: window.granted, grants: window.ck.grants().length };
      }, 100);
    });
  });
  await click(p, "#arm");
  const r = await waitFor(p, () => window.agentTurn);
  assert.equal(await p.evaluate(() => window.ck.handMode), true);
  assert.equal(r.gate, "fired", "the element action ran: the button was clicked");
  assert.equal(r.inHandler, true, "the app's handler ran with a person's activation still live");
  assert.deepEqual(r.granted, { code: "needs_user_activation", isError: true });
  assert.equal(r.grants, 0);
  assert.deepEqual(p.problems, []);
});

test("the Watch panel lists live grants and a click on Revoke ends one; rows show notes and grants", { timeout: TEST_TIMEOUT }, async () => {
  const p = await page();
  await p.evaluate(() => { window.panel = window.ck.mountWatchPanel(); });
  const hidden = await onPart(p, "grants", function () { return this.hidden; });
  assert.equal(hidden, true, "no grant, no section");
  const made = await grantByClick(p, "archive", { maxUses: 3, match: { box: "inbox" } });
  await p.evaluate(() => window.ck.invoke({ name: "archive", args: { box: "inbox" } }));
  const listed = await onPart(p, "grants", function () {
    return [...this.querySelectorAll("[part=grant-row]")].map((li) => ({
      id: li.dataset.grant,
      action: li.querySelector("[part=grant-action]").textContent,
      match: li.querySelector("[part=grant-match]").textContent,
      uses: li.querySelector("[part=grant-uses]").textContent,
      until: li.querySelector("[part=grant-until]").textContent,
      hidden: this.hidden,
    }));
  });
  assert.equal(listed.length, 1);
  assert.deepEqual([listed[0].id, listed[0].action, listed[0].match, listed[0].uses, listed[0].hidden], [made.id, "archive", '{"box":"inbox"}', "1 of 3 uses", false]);
  assert.match(listed[0].until, /^until \d\d:\d\d:\d\d$/);
  const row = await onPart(p, "rows", function () {
    const li = this.querySelector("li");
    return li.querySelector("[part=grant]")?.textContent;
  });
  assert.equal(row, `on grant ${made.id}`);
  await clickPart(p, "revoke");
  await waitFor(p, () => window.ck.grants().length === 0);
  assert.equal(await onPart(p, "grants", function () { return this.hidden; }), true);
  // A note on a row.
  const key = await p.evaluate(() => window.call({ name: "purgeLogs", args: {} }));
  await waitCard(p, (s) => s.open);
  await typeReason(p, "keep the logs");
  await clickPart(p, "cancel");
  await waitOutcome(p, key);
  assert.equal(await onPart(p, "rows", function () { return this.querySelector("li [part=note]")?.textContent; }), "keep the logs");
  assert.match(await p.evaluate(() => window.panel.jsonLines()), /"note":"keep the logs"/);
  assert.deepEqual(p.problems, []);
});
