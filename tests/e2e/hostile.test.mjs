// The hostile agent and fault suite (SPEC §8), in every engine: an untrusted agent driven by a
// seeded generator calls `invoke` and `handleToolCall` with anything, synthetic events hit every
// element (the SDK's closed card included, reached through the engine's protocol or, in WebKit,
// the driver's page tap), `run`s misbehave, sinks throw, the instance is disposed and the page
// hidden mid-flight. The in-page half is tests/e2e/hostile/lab.js, whose file comment says how
// each check is tied to what the page saw.
//
// After every scenario: no hard `run` without a trusted click on that card's armed Confirm, no
// soft `run` without a confirming call carrying the token issued to that call for exactly those
// args, one record per settled call in both directions, no uncaught error or unhandled
// rejection, the SDK still answers a normal call (a wasm panic would make every call throw),
// wasm memory within the flood's bound.
//
//   HOSTILE_SEED=n   reproduces a run (the seed is printed)
//   HOSTILE_SCALE=x  scales the call and event counts (default 1 in Chromium, 0.5 in Firefox
//                    and WebKit, whose drivers are slower: the same scenarios, shorter runs)
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, existsSync } from "node:fs";
import { launch, openFixture, onPart, click, cardState, waitCard, waitArmed, apartFromTheLastClick, sleep, partCenter, ENGINE, TEST_TIMEOUT } from "./harness.mjs";

const SEED = Number(process.env.HOSTILE_SEED ?? Math.floor(Math.random() * 2 ** 31));
const SCALE = Number(process.env.HOSTILE_SCALE ?? (ENGINE === "chromium" ? 1 : 0.5));
const n = (count) => Math.max(1, Math.round(count * SCALE));
/**
 * The flood's memory bound, held by every scenario: the flood below (2 × 10,000 invokes, 2,000
 * of them hard) settles at about 2.7 MiB of wasm memory and may grow by at most 1 MiB more;
 * no scenario may need more than that.
 */
const MEMORY_BOUND = 4 * 1024 * 1024;
console.log(`hostile: ${ENGINE} HOSTILE_SEED=${SEED} HOSTILE_SCALE=${SCALE}`);

const LAB = readFileSync(new URL("./hostile/lab.js", import.meta.url), "utf8");
const totals = {
  scenarios: 0, calls: 0, toolCalls: 0, events: 0, trustedConfirms: 0, hardRuns: 0, softRuns: 0,
  openRuns: 0, trustedClicks: 0, hardWithoutConsent: 0, softWithoutConsent: 0, uncaught: 0, peakMemory: 0,
  settledCalls: 0, settledRecords: 0, passkeyCalls: 0, passkeyFires: 0,
};
/** The fuzz target's own figures, written by the test command (scripts/test) in this run. */
const FUZZ = process.env.COWORKKIT_FUZZ_FIGURES;

let env;
before(async () => { env = await launch(); });
after(async () => {
  await env?.close();
  console.log([
    `hostile figures (${env?.version ?? ENGINE}, HOSTILE_SEED=${SEED} HOSTILE_SCALE=${SCALE}):`,
    `  scenarios run                 ${totals.scenarios}`,
    `  calls made                    ${totals.calls + totals.toolCalls} (invoke ${totals.calls}, handleToolCall ${totals.toolCalls})`,
    `  synthetic events fired        ${totals.events}`,
    `  trusted clicks on the card    ${totals.trustedClicks}, on its Confirm ${totals.trustedConfirms} (hard runs: ${totals.hardRuns}, each matched to one)`,
    `  soft runs (each with a token) ${totals.softRuns}; open runs ${totals.openRuns}`,
    `  records per settled call      ${totals.settledCalls ? (totals.settledRecords / totals.settledCalls).toFixed(3) : "-"} (${totals.settledRecords} records, ${totals.settledCalls} calls)`,
    `  passkey calls (input agent)   ${totals.passkeyCalls}, fired ${totals.passkeyFires}, each with a verified assertion over its own statement`,
    `  hard fires without consent    ${totals.hardWithoutConsent}`,
    `  soft fires without consent    ${totals.softWithoutConsent}`,
    `  uncaught errors               ${totals.uncaught}`,
    `  peak wasm memory              ${(totals.peakMemory / 1048576).toFixed(1)} MiB`,
    `  fuzz executions               ${FUZZ && existsSync(FUZZ) ? readFileSync(FUZZ, "utf8").trim()
      : "not run by this command (./scripts/test runs the fuzz target and passes its figures here)"}`,
  ].join("\n"));
});

/** A fresh page with the lab loaded. */
async function labPage() {
  const p = await openFixture(env);
  await p.addScript({ content: LAB });
  return p;
}

/**
 * A real (trusted) click on the visible card's Confirm. The page is told where Confirm is (read
 * through the engine's protocol); what counts is the click the page then receives there.
 */
async function trustedConfirm(p) {
  const at = await onPart(p, "confirm", function () {
    const r = this.getBoundingClientRect();
    return { x: r.x, y: r.y, width: r.width, height: r.height };
  });
  if (!at) throw new Error("no Confirm to click");
  await p.evaluate((at) => { lab.confirmAt = at; }, at);
  await apartFromTheLastClick(p);
  await p.mouse.click(at.x + at.width / 2, at.y + at.height / 2);
}

const hardRuns = (p) => p.evaluate(() => lab.stats.hardRuns);

/** The end-of-scenario checks (see the file comment); closes the page. */
async function finish(p, name) {
  const r = await p.evaluate(() => lab.finish());
  const pageErrors = p.problems.filter((x) => x.startsWith("pageerror"));
  const s = r.stats;
  totals.scenarios += 1;
  totals.calls += s.calls;
  totals.toolCalls += s.toolCalls;
  totals.events += s.events;
  totals.trustedConfirms += s.trustedConfirms;
  totals.trustedClicks += s.trustedClicks;
  totals.hardRuns += s.hardRuns;
  totals.softRuns += s.softRuns;
  totals.openRuns += s.openRuns;
  totals.settledCalls += s.settledCalls ?? 0;
  totals.settledRecords += s.settledRecords ?? 0;
  totals.hardWithoutConsent += r.violations.filter((v) => v.includes("without a trusted click")).length;
  totals.softWithoutConsent += r.violations.filter((v) => v.includes("without a confirming call") || v.includes("consented by a call")).length;
  totals.uncaught += pageErrors.length + r.unhandled.length;
  totals.peakMemory = Math.max(totals.peakMemory, r.memory);
  await p.close();
  const where = `${name} (${ENGINE}, HOSTILE_SEED=${SEED})`;
  console.log(`hostile: ${name}: ${s.calls} invokes, ${s.toolCalls} tool calls, ${r.instances} instances, wasm memory ${(r.memory / 1048576).toFixed(2)} MiB`);

  assert.deepEqual(r.violations, [], where);
  assert.deepEqual(pageErrors, [], `${where}: uncaught errors`);
  assert.deepEqual(r.unhandled, [], `${where}: unhandled rejections`);
  assert.deepEqual(r.errors, [], `${where}: error events`);
  assert.equal(r.still, true, `${where}: the SDK no longer answers a normal call: ${r.still}`);
  assert.ok(r.memory <= MEMORY_BOUND, `${where}: wasm memory ${r.memory} B, over the flood's bound of ${MEMORY_BOUND} B`);
  return r;
}

/**
 * Every synthetic way to say "yes" to an element, fired at `this` in the page; returns how many
 * events it fired. None of them closes a dialog (those are tried one card at a time below).
 */
function synthetic() {
  const el = this;
  let fired = 0;
  const fire = (f) => { fired += 1; try { f(); } catch { /* a refused forgery is fine */ } };
  const opts = { bubbles: true, composed: true, cancelable: true };
  fire(() => el.click());
  for (const type of ["click", "dblclick", "auxclick", "mousedown", "mouseup", "contextmenu"]) {
    fire(() => el.dispatchEvent(new MouseEvent(type, { ...opts, detail: 1, button: 0, buttons: 1, clientX: 10, clientY: 10, view: window })));
  }
  for (const type of ["pointerdown", "pointerup", "click"]) {
    fire(() => el.dispatchEvent(new PointerEvent(type, { ...opts, isPrimary: true, pointerType: "mouse", pointerId: 1 })));
  }
  for (const key of ["Enter", " ", "NumpadEnter"]) {
    for (const type of ["keydown", "keypress", "keyup"]) {
      fire(() => el.dispatchEvent(new KeyboardEvent(type, { ...opts, key, code: key === " " ? "Space" : key })));
    }
  }
  fire(() => {
    el.focus?.();
    el.dispatchEvent(new KeyboardEvent("keydown", { ...opts, key: "Enter", code: "Enter" }));
    el.dispatchEvent(new KeyboardEvent("keydown", { ...opts, key: " ", code: "Space" }));
    el.dispatchEvent(new KeyboardEvent("keyup", { ...opts, key: " ", code: "Space" }));
  });
  fire(() => el.dispatchEvent(new SubmitEvent("submit", opts)));
  fire(() => el.dispatchEvent(new Event("click", opts)));
  fire(() => el.dispatchEvent(new CustomEvent("click", { ...opts, detail: { isTrusted: true } })));
  fire(() => el.dispatchEvent(new FocusEvent("focus")));
  fire(() => el.dispatchEvent(new InputEvent("input", opts)));
  fire(() => el.dispatchEvent(new Event("touchend", opts)));
  fire(() => el.dispatchEvent(new Event("command", opts)));
  fire(() => { const e = new MouseEvent("click", opts); Object.defineProperty(e, "isTrusted", { value: true }); el.dispatchEvent(e); });
  fire(() => el.closest?.("form")?.requestSubmit());
  fire(() => { const d = el.closest?.("dialog"); if (d) d.returnValue = "confirm"; });
  return fired;
}

/** `synthetic` fired at a card part; the count it fired (a part that is missing fails here, not as NaN later). */
async function syntheticAt(p, part) {
  const fired = await onPart(p, part, synthetic);
  assert.ok(Number.isInteger(fired) && fired > 0, `synthetic events at "${part}": ${fired} (no such part?)`);
  return fired;
}

/** `synthetic` at the page's own elements and at the SDK's host elements (reachable from JS). */
function atPageElements(src) {
  const fire = new Function(`return (${src})`)();
  let fired = 0;
  for (const el of [document.querySelector("#outside"), document.querySelector("#field"), document.body,
    document.documentElement, ...document.querySelectorAll("[data-coworkkit]")]) {
    if (el) fired += fire.call(el);
  }
  return fired;
}

/**
 * The refusals an agent run is there to provoke did happen: expired tokens, forged, swapped
 * and tampered ones, declines; and records' `via` was checked.
 */
function refusalsHappened(r, name) {
  const { codes, badToken, viaChecked } = r.stats;
  console.log(`hostile: ${name}: answers ${JSON.stringify(codes)}; bad_token by kind ${JSON.stringify(badToken)}; via checked on ${viaChecked} records`);
  for (const code of ["token_expired", "declined", "bad_token", "unknown_action", "invalid_args"]) assert.ok(codes[code] > 0, `${name}: no ${code} answer`);
  for (const kind of ["forged", "swapped", "tampered"]) assert.ok(badToken[kind] > 0, `${name}: no ${kind} token refused`);
  assert.equal(badToken.own, 0, `${name}: a token issued for exactly that call was refused: ${JSON.stringify(r.stats.ownRefused)}`);
  assert.ok(viaChecked > 0, `${name}: no record's via was checked`);
}

test("an untrusted agent through invoke: thousands of random and adversarial calls", { timeout: TEST_TIMEOUT }, async () => {
  const p = await labPage();
  await p.evaluate(async ([seed, count]) => {
    lab.setup({ confirmTimeoutMs: 400, maxPending: 8 });
    await lab.agent(seed, count, "invoke", { expireEvery: 500, expireMs: 450 });
  }, [SEED, n(3000)]);
  const r = await finish(p, "invoke agent");
  assert.equal(r.stats.hardRuns, 0, "no click, no hard run");
  assert.ok(r.stats.softRuns > 0, "the agent's proper confirmations fired soft calls (the check is not vacuous)");
  refusalsHappened(r, "invoke agent");
});

test("an untrusted agent through handleToolCall, in OpenAI Chat, OpenAI Responses, Anthropic and AI SDK shapes", { timeout: TEST_TIMEOUT }, async () => {
  const p = await labPage();
  await p.evaluate(async ([seed, count]) => {
    lab.setup({ confirmTimeoutMs: 400, maxPending: 8 });
    await lab.agent(seed + 1, count, "tool", { expireEvery: 500, expireMs: 450 });
  }, [SEED, n(2000)]);
  const r = await finish(p, "tool-call agent");
  assert.equal(r.stats.hardRuns, 0);
  assert.ok(r.stats.softRuns > 0, "soft calls confirmed through tool calls fired");
  refusalsHappened(r, "tool-call agent");
});

test("synthetic events at every element, the SDK's card included, never confirm", { timeout: TEST_TIMEOUT }, async () => {
  const p = await labPage();
  await p.evaluate(() => {
    lab.setup({ armDelayMs: 50 });
    lab.call(lab.inst, { name: "deleteProject", args: { projectId: "p1" }, callId: "h1" });
  });
  await waitCard(p, (s) => s.open);
  await sleep(100); // armed: a trusted click would confirm now
  let events = 0;
  for (let round = 0; round < n(4); round++) {
    for (const part of ["confirm", "card", "title", "summary", "countdown"]) {
      events += await syntheticAt(p, part);
    }
    events += await p.evaluate(atPageElements, synthetic.toString());
  }
  await sleep(50);
  assert.equal(await hardRuns(p), 0);
  assert.equal((await cardState(p)).open, true, "the card still waits");
  assert.equal(await p.evaluate(() => lab.inst.ck.pending().length), 1);
  // The positive control: on that same armed card, after all of it, a person's click confirms.
  const answer = (callId) => p.evaluate((callId) => lab.inst.answers.find((a) => a.callIds.includes(callId))?.gate ?? "pending", callId);
  await waitArmed(p);
  await trustedConfirm(p);
  await sleep(150);
  assert.equal(await answer("h1"), "confirmed", "a trusted click on the armed Confirm still confirms");
  assert.equal(await hardRuns(p), 1);

  // What closes a dialog may only cancel it.
  const closers = {
    close: function () { const d = this.closest("dialog"); d.returnValue = "confirm"; d.close("confirm"); return 1; },
    cancelEvent: function () { this.closest("dialog").dispatchEvent(new Event("cancel", { cancelable: true })); return 1; },
    requestClose: function () { const d = this.closest("dialog"); (d.requestClose ?? d.close).call(d, "confirm"); return 1; },
    formDialog: function () {
      const f = document.createElement("form");
      f.method = "dialog";
      this.closest("dialog").append(f);
      f.requestSubmit();
      return 1;
    },
    cancelClick: function () { this.getRootNode().querySelector("[part~=cancel]").click(); return 1; },
    escapeKey: function () { this.closest("dialog").dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true })); return 1; },
  };
  const open = async (key) => {
    await p.evaluate((key) => { lab.call(lab.inst, { name: "deleteProject", args: { projectId: key }, callId: key }); }, key);
    await waitCard(p, (s) => s.open && s.summary === `Delete ${key}?`);
    await sleep(80);
  };
  for (const [how, fn] of Object.entries(closers)) {
    const key = `close_${how}`;
    await open(key);
    const closed = await onPart(p, "confirm", fn);
    assert.equal(closed, 1, `${how}: no Confirm to try it on`);
    events += closed;
    events += await syntheticAt(p, "confirm");
    await sleep(80);
    const gate = await answer(key);
    assert.ok(["cancelled", "pending"].includes(gate), `${how}: ${gate}`);
    if (gate === "pending") await p.evaluate(() => { for (const q of lab.inst.ck.pending()) lab.inst.ck.cancel(q.id); });
  }
  assert.equal(await hardRuns(p), 1);
  // And after every closer was tried, a fresh card still takes a person's click.
  await open("after_closers");
  events += await syntheticAt(p, "confirm");
  await waitArmed(p);
  await trustedConfirm(p);
  await sleep(150);
  assert.equal(await answer("after_closers"), "confirmed");
  assert.equal(await hardRuns(p), 2);
  await p.evaluate((events) => { lab.stats.events += events; }, events);
  await finish(p, "synthetic events");
});

test("calls during the arm delay, and trusted clicks inside it, do nothing", { timeout: TEST_TIMEOUT }, async () => {
  const p = await labPage();
  await p.evaluate(() => {
    lab.setup({ armDelayMs: 1500, confirmTimeoutMs: 30000 });
    window.first = lab.call(lab.inst, { name: "deleteProject", args: { projectId: "a" }, callId: "arm1" });
  });
  await waitCard(p, (s) => s.open && s.summary === "Delete a?");
  const during = await p.evaluate(async (seed) => {
    const inst = lab.inst;
    const same = lab.call(inst, { name: "deleteProject", args: { projectId: "a" }, callId: "arm1" });
    const conflict = await lab.call(inst, { name: "deleteProject", args: { projectId: "b" }, callId: "arm1" });
    lab.call(inst, { name: "deleteProject", args: { projectId: "second" }, callId: "arm2" });
    // A hard call is no token call: the same callId and args join the waiting call.
    const token = await Promise.race([
      lab.call(inst, { name: "deleteProject", args: { projectId: "a" }, callId: "arm1", confirmToken: inst.ck.pending()[0].id }),
      lab.sleep(50).then(() => ({ gate: "pending" })),
    ]);
    lab.tool(inst, { type: "tool_use", id: "arm1", name: "deleteProject", input: { projectId: "a" } });
    lab.tool(inst, { id: "arm1", type: "function", function: { name: "deleteProject", arguments: '{"projectId":"a","confirmToken":"x"}' } });
    await lab.agent(seed + 3, 30, "invoke");
    window.same = same;
    return { conflict: conflict.error?.code, token: token.gate, pending: inst.ck.pending().map((q) => q.callId) };
  }, SEED);
  assert.equal(during.conflict, "call_id_conflict");
  assert.equal(during.token, "pending");
  assert.deepEqual(during.pending.slice(0, 2), ["arm1", "arm2"]);
  await trustedConfirm(p); // inside the arm delay
  await sleep(150);
  assert.equal(await hardRuns(p), 0, "a trusted click inside the arm delay does nothing");
  await waitArmed(p);
  await trustedConfirm(p);
  const outcome = await p.evaluate(() => window.first);
  assert.equal(outcome.gate, "confirmed");
  assert.deepEqual(await p.evaluate(() => window.same), outcome, "the same callId got the same outcome");
  assert.equal(await hardRuns(p), 1);
  await waitCard(p, (s) => s.open && s.summary === "Delete second?");
  await trustedConfirm(p); // the next card's own arm delay
  await sleep(150);
  assert.equal(await hardRuns(p), 1);
  await waitArmed(p);
  await trustedConfirm(p);
  await sleep(100);
  assert.equal(await hardRuns(p), 2);
  await finish(p, "arm delay");
});

test("a flood of 10,000 invokes with 1,000 hard ones, twice: bounded and still working", { timeout: TEST_TIMEOUT }, async () => {
  const p = await labPage();
  const r = await p.evaluate(async (count) => {
    const inst = lab.setup({ confirmTimeoutMs: 1000 });
    const flood = async () => {
      const t0 = performance.now();
      const waiting = [];
      for (let i = 0; i < count; i++) {
        const k = i % 10;
        const call = k === 9 ? { name: "deleteProject", args: { projectId: `f${i}` } }
          : k === 8 ? { name: "archiveThread", args: { i } }
          : { name: "readDoc", args: { i, s: "x".repeat(i % 50) } };
        const promise = lab.call(inst, call);
        if (k !== 9) waiting.push(promise);
      }
      await Promise.all(waiting);
      const ms = performance.now() - t0;
      for (const q of inst.ck.pending()) inst.ck.cancel(q.id);
      await lab.sleep(1100); // the soft tokens expire and settle as timeout
      return ms;
    };
    const m0 = window.wasmMemoryBytes();
    const t1 = await flood();
    const m1 = window.wasmMemoryBytes();
    const t2 = await flood();
    const m2 = window.wasmMemoryBytes();
    const gates = {};
    for (const a of inst.answers) gates[a.code ?? a.gate] = (gates[a.code ?? a.gate] ?? 0) + 1;
    lab.call(inst, { name: "deleteProject", args: { projectId: "after-flood" }, callId: "after" });
    return { m0, m1, m2, t1, t2, gates };
  }, n(10000));
  console.log(`hostile: flood of ${n(10000)} x2: ${r.t1.toFixed(0)} ms, ${r.t2.toFixed(0)} ms; wasm memory ${r.m0} → ${r.m1} → ${r.m2} B; ${JSON.stringify(r.gates)}`);
  assert.ok(r.m2 - r.m1 <= 1024 * 1024, "no growth after the first flood");
  assert.ok(r.m2 <= MEMORY_BOUND, `the flood itself stays within ${MEMORY_BOUND} B: ${r.m2}`);
  assert.equal(r.gates.fired, Math.round(n(10000) * 0.8) * 2);
  await waitCard(p, (s) => s.open && s.summary === "Delete after-flood?");
  await waitArmed(p);
  await trustedConfirm(p);
  await sleep(100);
  assert.equal(await hardRuns(p), 1, "a card still confirms after the flood");
  await finish(p, "flood");
});

test("run handlers that throw, reject, never resolve or re-enter invoke", { timeout: TEST_TIMEOUT }, async () => {
  const p = await labPage();
  const modes = ["throw", "throwValue", "reject", "rejectNothing", "hang", "slow", "thenableThrows", "cyclic", "bigint", "reenter", "plain"];
  const r = await p.evaluate(async (modes) => {
    const inst = lab.setup();
    const settle = (promise) => Promise.race([promise, lab.sleep(300).then(() => "pending")]);
    const out = {};
    for (const mode of modes) {
      const open = await settle(lab.call(inst, { name: "readDoc", args: { mode } }));
      const first = await lab.call(inst, { name: "archiveThread", args: { mode } });
      const soft = await settle(lab.call(inst, { name: "archiveThread", args: { mode }, confirmToken: first.confirmToken }));
      const tool = await settle(lab.tool(inst, { type: "tool_use", id: `t_${mode}`, name: "readDoc", input: { mode } }));
      const view = (o) => (o === "pending" ? o : [o.gate, o.ok, o.error?.code ?? null].join(" "));
      out[mode] = { open: view(open), soft: view(soft), tool: tool === "pending" ? tool : JSON.parse(tool.content).gate };
    }
    const other = lab.setup();
    const disposing = await lab.call(other, { name: "readDoc", args: { mode: "disposeInside" } });
    const afterDispose = await lab.call(other, { name: "readDoc", args: {} });
    lab.inst = inst;
    for (const q of inst.ck.pending()) inst.ck.cancel(q.id); // the cards `reenter` proposed
    lab.call(inst, { name: "deleteProject", args: { projectId: "x", mode: "throw" }, callId: "hardThrow" }).then((o) => { window.hardThrow = o; });
    return { out, disposing: disposing.gate, afterDispose: afterDispose.gate };
  }, modes);
  for (const mode of ["throw", "throwValue", "reject", "rejectNothing", "thenableThrows"]) {
    assert.equal(r.out[mode].open, "fired false run_failed", mode);
    assert.equal(r.out[mode].soft, "confirmed false run_failed", mode);
  }
  for (const mode of ["slow", "cyclic", "bigint", "reenter", "plain"]) assert.equal(r.out[mode].open, "fired true ", mode);
  assert.equal(r.out.hang.open, "pending");
  assert.equal(r.disposing, "fired");
  assert.equal(r.afterDispose, "cancelled");
  await waitCard(p, (s) => s.open && s.summary === "Delete x?");
  await waitArmed(p);
  await trustedConfirm(p);
  await sleep(100);
  const hard = await p.evaluate(() => window.hardThrow);
  assert.deepEqual([hard.gate, hard.ok, hard.error.code], ["confirmed", false, "run_failed"]);
  await finish(p, "misbehaving runs");
});

test("a record sink and event listeners that throw break nothing", { timeout: TEST_TIMEOUT }, async () => {
  const p = await labPage();
  await p.evaluate(async (seed) => {
    const inst = lab.setup({ sink: () => { throw new Error("sink threw"); } });
    for (const kind of ["record", "proposal", "resolved"]) inst.ck.on(kind, () => { throw new Error(`${kind} listener threw`); });
    await lab.agent(seed + 5, 300, "invoke");
    for (const q of inst.ck.pending()) inst.ck.cancel(q.id);
    lab.call(inst, { name: "deleteProject", args: { projectId: "sink" }, callId: "sinkHard" }).then((o) => { window.sinkHard = o; });
  }, SEED);
  await waitCard(p, (s) => s.open && s.summary === "Delete sink?");
  await waitArmed(p);
  await trustedConfirm(p);
  await sleep(100);
  assert.equal((await p.evaluate(() => window.sinkHard)).gate, "confirmed");
  assert.ok(await p.evaluate(() => lab.inst.records.some((r) => r.callId === "sinkHard")), "records still delivered");
  await finish(p, "throwing sinks");
});

test("dispose and pagehide in the middle of a card and of a run", { timeout: TEST_TIMEOUT }, async () => {
  const p = await labPage();
  const start = () => p.evaluate(() => {
    const inst = lab.setup();
    const o = (window.o = {});
    lab.controlled = [];
    lab.call(inst, { name: "readDoc", args: { mode: "controlled" } }).then((x) => { o.run = x; });
    lab.call(inst, { name: "archiveThread", args: { a: 1 } }).then((x) => { o.softFirst = x; });
    lab.call(inst, { name: "deleteProject", args: { projectId: "card" } }).then((x) => { o.card = x; });
    lab.call(inst, { name: "deleteProject", args: { projectId: "queued" } }).then((x) => { o.queued = x; });
  });
  for (const how of ["dispose", "pagehide"]) {
    await start();
    await waitCard(p, (s) => s.open && s.summary === "Delete card?");
    await p.evaluate((how) => {
      if (how === "dispose") lab.inst.ck.dispose();
      else window.dispatchEvent(new PageTransitionEvent("pagehide", { persisted: false }));
    }, how);
    await sleep(50);
    assert.equal((await cardState(p)).present, false, `${how}: the card is gone`);
    const r = await p.evaluate(async () => {
      const inst = lab.inst;
      const aborted = lab.controlled[0].signal.aborted;
      const later = await lab.call(inst, { name: "readDoc", args: {} });
      const laterTool = JSON.parse((await lab.tool(inst, { type: "function_call", call_id: "late", name: "readDoc", arguments: "{}" })).output).gate;
      lab.controlled[0].resolve({ finished: true });
      await lab.sleep(20);
      const reasons = inst.records.filter((r) => r.gate === "cancelled").map((r) => r.reason);
      return { o: window.o, aborted, later: later.gate, laterTool, reasons };
    });
    assert.equal(r.o.card.gate, "cancelled", how);
    assert.equal(r.o.queued.gate, "cancelled", how);
    assert.equal(r.aborted, true, `${how}: ctx.signal aborted`);
    assert.equal(r.o.run.gate, "fired", `${how}: the running call still finishes, once`);
    assert.equal(r.later, "cancelled");
    assert.equal(r.laterTool, "cancelled");
    assert.ok(r.reasons.length >= 3 && r.reasons.every((x) => x === "disposed"), JSON.stringify(r.reasons));
  }
  // Disposed from inside a `proposal` listener, while the card is being drawn.
  const inside = await p.evaluate(async () => {
    const inst = lab.setup();
    inst.ck.on("proposal", () => inst.ck.dispose());
    return (await lab.call(inst, { name: "deleteProject", args: { projectId: "re" } })).gate;
  });
  assert.equal(inside, "cancelled");
  await sleep(50);
  assert.equal((await cardState(p)).present, false);
  assert.equal(await hardRuns(p), 0);
  await finish(p, "dispose and pagehide");
});

test("the tab hidden during Hand mode disarms it; element actions never touch the page unarmed", { timeout: TEST_TIMEOUT }, async () => {
  const p = await labPage();
  await p.evaluate(() => {
    const inst = lab.setup({ armDelayMs: 100 });
    window.clicks = 0;
    document.querySelector("#outside").addEventListener("click", () => { window.clicks += 1; });
    inst.ck.defineAction({ name: "pressOutside", description: "Press.", control: "open", element: "#outside", operation: "click" });
    inst.ck.defineAction({ name: "fillField", description: "Fill.", control: "open", element: "#field", operation: "fill" });
    inst.ck.defineAction({ name: "pressHard", description: "Press hard.", control: "hard", element: "#outside", operation: "click" });
    inst.ck.defineAction({ name: "pressSdk", description: "Press the SDK.", control: "open", element: "[data-coworkkit]", operation: "click" });
    const arm = document.createElement("button");
    arm.id = "arm";
    arm.textContent = "Let the agent help";
    arm.addEventListener("click", () => inst.ck.armHandMode());
    document.body.append(arm);
    const firedBefore = new Set();
    // `reused`: the callId the round sends again and again. One per round: a call refused on
    // arrival (needs_hand_mode while disarmed) is not remembered, so an id reused across
    // rounds could name a refused call and, later, a card; the lab counts a card's records by
    // its callId.
    window.elementAgent = async (seed, count, reused) => {
      const g = lab.makeGen(seed);
      // Counted by callId, and only the first time: a re-sent `reused` is answered from memory
      // with its first outcome and clicks nothing.
      const fired = new Set();
      const waiting = [];
      for (let i = 0; i < count; i++) {
        const name = g.pick(["pressOutside", "pressOutside", "fillField", "pressSdk", "pressHard", "readDoc"]);
        const args = g.chance(0.7) ? (name === "fillField" ? { value: g.str() } : {}) : g.args();
        const promise = lab.call(inst, { name, args, callId: g.chance(0.2) ? reused : undefined });
        waiting.push(promise.then((o) => { if (name === "pressOutside" && o?.gate === "fired" && o.ok && !firedBefore.has(o.callId)) fired.add(o.callId); }));
        await Promise.race([promise, lab.sleep(0)]);
      }
      for (const q of inst.ck.pending()) if (q.action !== "pressHard" || q.callId !== "keep") inst.ck.cancel(q.id);
      await Promise.race([Promise.all(waiting), lab.sleep(200)]);
      for (const id of fired) firedBefore.add(id);
      return fired.size;
    };
  });
  const state = () => p.evaluate(() => ({ clicks: window.clicks, field: document.querySelector("#field").value, armed: lab.inst.ck.handMode }));
  assert.equal(await p.evaluate((seed) => window.elementAgent(seed, 60, "e1"), SEED + 11), 0);
  assert.deepEqual(await state(), { clicks: 0, field: "", armed: false }, "disarmed: the page is untouched");

  await click(p, "#arm");
  assert.equal((await state()).armed, true);
  const fired = await p.evaluate(([seed, count]) => window.elementAgent(seed, count, "e2"), [SEED + 12, Math.max(60, n(150))]);
  assert.ok(fired > 0, "armed, element actions act (the positive control of the rounds before and after)");
  assert.equal((await state()).clicks, fired, "every click on the page is a fired element call; none from pressHard");
  await p.evaluate(() => { lab.call(lab.inst, { name: "pressHard", args: {}, callId: "keep" }).then((o) => { window.keep = o; }); });
  await waitCard(p, (s) => s.open);

  await p.evaluate(() => {
    Object.defineProperty(document, "hidden", { configurable: true, get: () => true });
    Object.defineProperty(document, "visibilityState", { configurable: true, get: () => "hidden" });
    document.dispatchEvent(new Event("visibilitychange"));
  });
  assert.equal((await state()).armed, false, "hidden: disarmed");
  const before = (await state()).clicks;
  assert.equal(await p.evaluate((seed) => window.elementAgent(seed, 60, "e3"), SEED + 13), 0);
  // Shown again (the card does not arm while the page is hidden, SPEC §4.2): a person
  // confirms the hard element card, but Hand mode is off now.
  await p.evaluate(() => { delete document.hidden; delete document.visibilityState; });
  await waitArmed(p);
  await trustedConfirm(p);
  await sleep(100);
  assert.equal((await p.evaluate(() => window.keep)).gate, "needs_hand_mode");
  assert.equal((await state()).clicks, before, "nothing touched the page while hidden");
  await finish(p, "hidden tab");
});

// ---- WebMCP: the browser's own agent as a door (SPEC §7.2) ----------------------------------
// Chromium's own document.modelContext (a browser of its own, with --enable-features=WebMCP);
// elsewhere the standard-shaped fixture that mirrors it. See "the WebMCP door" in lab.js.
const MODEL_CONTEXT = readFileSync(new URL("./fixtures/model-context.js", import.meta.url), "utf8");

test("an untrusted agent through WebMCP's executeTool: no hard fire without a click, no soft fire without its token", { timeout: TEST_TIMEOUT }, async () => {
  const mcpEnv = ENGINE === "chromium" ? await launch({ chromium: { args: ["--enable-features=WebMCP"] } }) : env;
  try {
    const p = await openFixture(mcpEnv);
    if (ENGINE !== "chromium") await p.addScript({ content: MODEL_CONTEXT });
    await p.addScript({ content: LAB });
    const sent = await p.evaluate(async ([seed, count]) => {
      // Every execution is a fresh call, so each soft one waits with a token of its own: they
      // expire often, which keeps the waiting calls (and wasm memory) well within the bound.
      // Long enough that, on a loaded machine too, some proper confirmations beat the expiry.
      lab.setup({ confirmTimeoutMs: 600, maxPending: 8 });
      return lab.mcpAgent(seed + 21, count, { expireEvery: 250, expireMs: 630 });
    }, [SEED, n(1500)]);
    const mid = await p.evaluate(() => ({ ...lab.stats, violations: lab.stats.violations.length }));
    assert.equal(mid.hardRuns, 0, "no click, no hard run");
    assert.ok(mid.softRuns > 0, "proper confirmations through executeTool fired soft calls (the check is not vacuous)");

    // The positive control: the browser's agent asks for a hard action; script and synthetic
    // events at the armed card do nothing; a person's click on Confirm runs it, once.
    await p.evaluate(async () => {
      lab.inst.ck.dispose(); // its tools leave the model context: the names are free again
      const inst = lab.setup({ armDelayMs: 50 });
      await lab.mcpExpose(inst);
      window.mcpHard = null;
      lab.mcp(inst, "deleteProject", { projectId: "mcp-control" }).then((o) => { window.mcpHard = o; });
    });
    await waitCard(p, (s) => s.open && s.summary === "Delete mcp-control?");
    await sleep(100);
    const events = (await syntheticAt(p, "confirm")) + (await p.evaluate(atPageElements, synthetic.toString()));
    await sleep(50);
    assert.equal(await hardRuns(p), 0);
    assert.equal(await p.evaluate(() => window.mcpHard), null, "the browser's agent still waits");
    await waitArmed(p);
    await trustedConfirm(p);
    for (const end = Date.now() + 5000; Date.now() < end && (await p.evaluate(() => window.mcpHard)) === null;) await sleep(25);
    assert.deepEqual(await p.evaluate(() => [window.mcpHard.gate, window.mcpHard.ok]), ["confirmed", true]);
    assert.equal(await hardRuns(p), 1);
    const s = await p.evaluate(async (events) => { lab.stats.events += events; await lab.mcpSettle(); return { ...lab.stats }; }, events);
    console.log(`hostile: webmcp door: ${s.mcpCalls} executeTool calls (${sent} sent by the agent), ${s.mcpExecutes} reached the SDK, ${s.mcpRefusedByBrowser} refused by the browser itself; ${s.mcpFreed} instances freed; soft runs ${s.softRuns}, hard runs ${s.hardRuns}`);
    assert.ok(s.mcpExecutes > 0 && s.mcpRefusedByBrowser > 0, "both the SDK's answers and the browser's own refusals were exercised");
    const f = await finish(p, "webmcp agent");
    console.log(`hostile: webmcp agent: ${f.stats.mcpMatched} answers matched to their records; answers ${JSON.stringify(f.stats.codes)}; bad_token by kind ${JSON.stringify(f.stats.badToken)}; via checked on ${f.stats.viaChecked} records`);
    assert.ok(f.stats.mcpMatched > 0 && f.stats.viaChecked > 0);
    // (An unknown name never reaches the SDK here: the browser has no such tool.)
    for (const code of ["bad_token", "token_expired"]) assert.ok(f.stats.codes[code] > 0, `webmcp agent: no ${code} answer`);
  } finally {
    if (mcpEnv !== env) await mcpEnv.close();
  }
});

// ---- the attacks never tried (issue 21) -----------------------------------------------------

/** Waits until `fn(arg)` in the page is truthy (polling), or fails naming `what`. */
async function until(p, fn, arg, what, ms = 5000) {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(25)) {
    const v = await p.evaluate(fn, arg);
    if (v) return v;
  }
  throw new Error(`timed out waiting for ${what}`);
}

test("two instances in one page: a token, a callId and a proposal id of one are nothing to the other", { timeout: 60_000 }, async () => {
  const p = await labPage();
  const r = await p.evaluate(async () => {
    const a = lab.setup({ armDelayMs: 100 });
    const b = lab.setup({ armDelayMs: 100 });
    lab.inst = a;
    const softA = await lab.call(a, { name: "archiveThread", args: { t: 1 }, callId: "shared_soft" });
    const softB = await lab.call(b, { name: "archiveThread", args: { t: 2 }, callId: "other_soft" });
    lab.call(a, { name: "deleteProject", args: { projectId: "a-card" }, callId: "shared_hard" }).then((o) => { window.hardA = o; });
    await lab.sleep(20);
    const proposalA = a.ck.pending()[0];
    const tA = softA.confirmToken, tB = softB.confirmToken;
    const view = (o) => (o ? `${o.gate}/${o.error?.code ?? ""}` : "null");
    const tool = async (inst, name, input, id) => {
      const res = await lab.tool(inst, { type: "tool_use", id, name, input });
      const c = JSON.parse(res.content);
      return `${c.gate}/${c.error?.code ?? ""}`;
    };
    const out = {
      // A's token on B: with A's args, with B's own args, as a decline, under A's callId.
      tokenOnB: view(await lab.call(b, { name: "archiveThread", args: { t: 1 }, confirmToken: tA })),
      tokenOnBOwnArgs: view(await lab.call(b, { name: "archiveThread", args: { t: 2 }, confirmToken: tA })),
      declineOnB: view(await lab.call(b, { name: "archiveThread", args: { t: 1 }, confirmToken: tA, decline: true })),
      tokenOnBSameId: view(await lab.call(b, { name: "archiveThread", args: { t: 1 }, confirmToken: tA, callId: "shared_soft" })),
      toolOnB: await tool(b, "archiveThread", { t: 1, confirmToken: tA }, "tc_cross_1"),
      toolDeclineOnB: await tool(b, "archiveThread", { t: 1, confirmToken: tA, decline: true }, "tc_cross_2"),
      // B's token on A.
      tokenOnA: view(await lab.call(a, { name: "archiveThread", args: { t: 2 }, confirmToken: tB })),
      toolOnA: await tool(a, "archiveThread", { t: 2, confirmToken: tB }, "tc_cross_3"),
      // A's proposal id: as a token on B, and cancelled through B.
      proposalAsToken: view(await lab.call(b, { name: "archiveThread", args: { t: 1 }, confirmToken: proposalA.id })),
      cancelOnB: b.ck.cancel(proposalA.id),
    };
    // A's hard callId on B is a call of B's own (its own card), never A's.
    lab.call(b, { name: "deleteProject", args: { projectId: "a-card" }, callId: "shared_hard" }).then((o) => { window.hardB = o; });
    await lab.sleep(20);
    out.pendingB = b.ck.pending().map((q) => q.callId);
    out.cancelSharedOnB = b.ck.cancel(b.ck.pending()[0]?.id ?? "");
    await lab.sleep(20);
    out.hardB = view(window.hardB);
    out.pendingA = a.ck.pending().map((q) => `${q.id === proposalA.id}/${q.callId}`);
    out.softRunsBefore = lab.stats.softRuns;
    // The positive control: A's token still confirms A's call, on A; B's on B.
    out.confirmA = view(await lab.call(a, { name: "archiveThread", args: { t: 1 }, confirmToken: tA }));
    out.confirmB = view(await lab.call(b, { name: "archiveThread", args: { t: 2 }, confirmToken: tB }));
    out.tokensDiffer = tA !== tB && typeof tA === "string" && typeof tB === "string";
    return out;
  });
  for (const key of ["tokenOnB", "tokenOnBOwnArgs", "declineOnB", "tokenOnBSameId", "toolOnB", "toolDeclineOnB", "tokenOnA", "toolOnA", "proposalAsToken"]) {
    assert.equal(r[key], "rejected/bad_token", key);
  }
  assert.equal(r.cancelOnB, false, "B cannot cancel A's proposal");
  assert.deepEqual(r.pendingB, ["shared_hard"]);
  assert.equal(r.cancelSharedOnB, true);
  assert.equal(r.hardB, "cancelled/cancelled_by_app", "B's own call of that callId, cancelled on B");
  assert.deepEqual(r.pendingA, ["true/shared_hard"], "A's card still waits, untouched");
  assert.equal(r.softRunsBefore, 0, "nothing fired before the positive control");
  assert.equal(r.confirmA, "confirmed/");
  assert.equal(r.confirmB, "confirmed/");
  assert.ok(r.tokensDiffer);
  // A's card still takes a person's click on A.
  await waitCard(p, (s) => s.open && s.summary === "Delete a-card?");
  await waitArmed(p);
  await trustedConfirm(p);
  await until(p, () => window.hardA, undefined, "A's hard call");
  assert.equal(await p.evaluate(() => window.hardA.gate), "confirmed");
  assert.equal(await hardRuns(p), 1);
  const f = await finish(p, "two instances");
  assert.ok(f.stats.badToken.foreign >= 6, `foreign tokens refused: ${JSON.stringify(f.stats.badToken)}`);
});

test("huge callId, confirmToken and name (16 MiB) through invoke and handleToolCall: refused, wasm memory flat", { timeout: 60_000 }, async () => {
  const p = await labPage();
  const r = await p.evaluate(async () => {
    const inst = lab.setup();
    const big = "x".repeat(16 << 20);
    const bigToken = "ckt_" + "0".repeat(16 << 20);
    const mid = "y".repeat(200000);
    const midToken = "ckt_" + "1".repeat(200000);
    const round = async (withMid = false) => {
      const codes = {};
      const note = (key, gate, code) => { codes[key] = `${gate}/${code ?? ""}`; };
      const inv = async (key, call) => { const o = await lab.call(inst, call); note(key, o.gate, o.error?.code); };
      const tool = async (key, call) => { const res = await lab.tool(inst, call); const c = JSON.parse(res.content ?? res.output); note(key, c.gate, c.error?.code); };
      await inv("invoke name", { name: big, args: {} });
      await inv("invoke callId", { name: "readDoc", args: {}, callId: big });
      await inv("invoke token", { name: "archiveThread", args: {}, confirmToken: bigToken });
      await tool("openai name", { id: "h1", type: "function", function: { name: big, arguments: "{}" } });
      await tool("openai id", { id: big, type: "function", function: { name: "readDoc", arguments: "{}" } });
      await tool("responses name", { type: "function_call", call_id: "h2", name: big, arguments: "{}" });
      await tool("responses id", { type: "function_call", call_id: big, name: "readDoc", arguments: "{}" });
      await tool("anthropic name", { type: "tool_use", id: "h3", name: big, input: {} });
      await tool("anthropic id", { type: "tool_use", id: big, name: "readDoc", input: {} });
      await tool("anthropic token", { type: "tool_use", id: "h4", name: "archiveThread", input: { confirmToken: bigToken } });
      await tool("openai token", { id: "h5", type: "function", function: { name: "archiveThread", arguments: JSON.stringify({ confirmToken: bigToken }) } });
      if (withMid) {
        // Under that length bound (200,000 characters), each field is judged for what it is.
        await tool("openai name 200k", { id: "h6", type: "function", function: { name: mid, arguments: "{}" } });
        await tool("responses id 200k", { type: "function_call", call_id: mid, name: "readDoc", arguments: "{}" });
        await tool("anthropic token 200k", { type: "tool_use", id: "h7", name: "archiveThread", input: { confirmToken: midToken } });
      }
      return codes;
    };
    // Warm up with a normal call through each door, so the first huge one pays for nothing else.
    await lab.call(inst, { name: "readDoc", args: {} });
    await lab.tool(inst, { type: "tool_use", id: "warm", name: "readDoc", input: {} });
    const m0 = window.wasmMemoryBytes();
    const first = await round();
    const m1 = window.wasmMemoryBytes();
    const second = await round();
    const m2 = window.wasmMemoryBytes();
    // Fields under the tool door's length bound are copied in to be judged: once, not per call.
    const third = await round(true);
    const m3 = window.wasmMemoryBytes();
    const fourth = await round(true);
    const m4 = window.wasmMemoryBytes();
    return { first, second, third, fourth, m0, m1, m2, m3, m4, runs: lab.stats.openRuns + lab.stats.softRuns };
  });
  console.log(`hostile: huge fields: wasm memory ${r.m0} → ${r.m1} → ${r.m2} B (16 MiB fields), → ${r.m3} → ${r.m4} B (with 200,000-character ones)`);
  const expected = {
    "invoke name": "rejected/unknown_action", "invoke callId": "rejected/invalid_args", "invoke token": "rejected/bad_token",
    // A tool call's string fields are refused by their length before anything is read
    // (src/js/read.js: longer than 4 × maxArgsBytes + 4096), as too large, whichever field.
    "openai name": "rejected/args_too_large", "openai id": "rejected/args_too_large",
    "responses name": "rejected/args_too_large", "responses id": "rejected/args_too_large",
    "anthropic name": "rejected/args_too_large", "anthropic id": "rejected/args_too_large",
    "anthropic token": "rejected/args_too_large", "openai token": "rejected/args_too_large",
  };
  const mid = { ...expected, "openai name 200k": "rejected/unknown_action", "responses id 200k": "rejected/invalid_args",
    "anthropic token 200k": "rejected/args_too_large" };
  assert.deepEqual(r.first, expected);
  assert.deepEqual(r.second, expected);
  assert.deepEqual(r.third, mid);
  assert.deepEqual(r.fourth, mid);
  assert.equal(r.m4, r.m3, "200,000-character fields grow wasm memory once at most, not per call");
  assert.ok(r.m4 <= MEMORY_BOUND);
  assert.equal(r.runs, 2, "only the two warm-up calls ran");
  assert.ok(r.m1 - r.m0 <= 65536, `wasm memory grew by ${r.m1 - r.m0} B on 16 MiB fields (at most one page allowed)`);
  assert.equal(r.m2, r.m1, "and not at all the second time");
  await finish(p, "huge fields");
});

/** Names that differ from a registered one only by Unicode, case or an invisible character. */
const LOOKALIKES = [
  "readD\u043Ec", // Cyrillic о
  "\u212AeepDoc", // Kelvin sign K (NFKC: "KeepDoc", lower case: "keepdoc")
  "\uFF52\uFF45\uFF41\uFF44\uFF24\uFF4F\uFF43", // fullwidth "readDoc"
  "readDoc\u0301", "rea\u0308dDoc", // combining marks
  "readDoc ", " readDoc", "readDoc\u0000", "readDoc\t", "read\u200BDoc", "readDoc\uFEFF", "readDoc\u00A0",
  "READDOC", "readdoc", "ReadDoc", "KeepDoc", "keepdoc", "KEEPDOC",
];

test("tool names that differ by Unicode, case or an invisible character: unknown_action at every door", { timeout: 60_000 }, async () => {
  const p = await labPage();
  const r = await p.evaluate(async (names) => {
    const inst = lab.setup();
    inst.ck.defineAction({ name: "keepDoc", description: "Keep a document.", control: "open", run: inst.run("open", "keepDoc") });
    const seen = {};
    const note = (door, name, gate, code) => { const k = `${gate}/${code ?? ""}`; (seen[k] ??= []).push(`${door}:${JSON.stringify(name)}`); };
    for (const name of names) {
      const o = await lab.call(inst, { name, args: {} });
      note("invoke", name, o.gate, o.error?.code);
      for (const call of [
        { id: "u1", type: "function", function: { name, arguments: "{}" } },
        { type: "function_call", call_id: "u2", name, arguments: "{}" },
        { type: "tool_use", id: "u3", name, input: {} },
      ]) {
        const res = await lab.tool(inst, call);
        const c = JSON.parse(res.content ?? res.output);
        note(call.type, name, c.gate, c.error?.code);
      }
    }
    const runsBefore = lab.stats.openRuns;
    const control = [(await lab.call(inst, { name: "readDoc", args: {} })).gate, (await lab.call(inst, { name: "keepDoc", args: {} })).gate];
    return { seen, runsBefore, control };
  }, LOOKALIKES);
  assert.deepEqual(Object.keys(r.seen), ["rejected/unknown_action"], JSON.stringify(r.seen));
  assert.equal(r.seen["rejected/unknown_action"].length, LOOKALIKES.length * 4);
  assert.equal(r.runsBefore, 0, "no lookalike ran anything");
  assert.deepEqual(r.control, ["fired", "fired"], "the real names still fire");
  await finish(p, "lookalike names");
});

test("trusted clicks on the armed card's title, summary, countdown and backdrop do nothing; focus the agent can move never reaches Confirm", { timeout: 60_000 }, async () => {
  const p = await labPage();
  await p.evaluate(() => {
    lab.setup({ armDelayMs: 100 });
    lab.call(lab.inst, { name: "deleteProject", args: { projectId: "parts" }, callId: "parts" }).then((o) => { window.parts = o; });
  });
  await waitCard(p, (s) => s.open && s.summary === "Delete parts?");
  await sleep(200); // armed: a click on Confirm would confirm now
  for (const part of ["title", "summary", "countdown"]) {
    const at = await partCenter(p, part);
    assert.ok(at, `${part} is drawn`);
    await p.mouse.click(at.x, at.y);
    await p.mouse.dblclick(at.x, at.y);
  }
  await p.mouse.click(4, 4); // the backdrop: the modal dialog covers the viewport
  await sleep(150);
  const after = await p.evaluate(() => ({ clicks: lab.stats.trustedClicks, parts: window.parts ?? null, pending: lab.inst.ck.pending().length }));
  assert.ok(after.clicks >= 7, `the page received the trusted clicks (${after.clicks})`);
  assert.equal(after.parts, null, "the call still waits");
  assert.equal(after.pending, 1);
  assert.equal((await cardState(p)).open, true);
  assert.equal(await hardRuns(p), 0);
  // What page script can do to move focus (the card's root is closed) never puts it on
  // Confirm, so a person's Enter does not confirm. (The clicks above may have taken focus off
  // Cancel: a click on text moves focus to no element.)
  const focusedAfterClicks = (await cardState(p)).focused;
  await p.evaluate(() => {
    const host = document.querySelector("[data-coworkkit=card]");
    host.focus();
    host.setAttribute("tabindex", "0");
    host.focus();
    host.removeAttribute("tabindex");
    document.body.focus();
  });
  const focusedAfterScript = (await cardState(p)).focused;
  assert.notEqual(focusedAfterClicks, "confirm");
  assert.notEqual(focusedAfterScript, "confirm");
  await p.keyboard.press("Enter");
  await sleep(150);
  const afterEnter = await p.evaluate(() => (window.parts ? `${window.parts.gate}/${window.parts.error?.code}` : "pending"));
  assert.ok(["pending", "cancelled/cancelled_by_user"].includes(afterEnter), `Enter with focus at ${focusedAfterScript}: ${afterEnter}`);
  assert.equal(await hardRuns(p), 0);
  console.log(`hostile: card parts: focus after the clicks ${focusedAfterClicks}, after page script ${focusedAfterScript}; Enter: ${afterEnter}`);
  // The next card is another instance's: this one's card layer goes (one card in the page).
  await p.evaluate(() => lab.inst.ck.dispose());

  // Focus put on Confirm through the engine's protocol (no page script can), then a person's
  // Enter inside the arm delay: nothing. (A key on Confirm confirms only once focus was brought
  // there by a key or press in the armed card, SPEC §4.2; card.test.mjs drives it.)
  await p.evaluate(() => {
    const inst = lab.setup({ armDelayMs: 1500, confirmTimeoutMs: 30000 });
    lab.call(inst, { name: "deleteProject", args: { projectId: "keys" }, callId: "keys" }).then((o) => { window.keys = o; });
  });
  await waitCard(p, (s) => s.open && s.summary === "Delete keys?");
  await onPart(p, "confirm", function () { this.focus(); });
  assert.equal((await cardState(p)).focused, "confirm");
  await p.keyboard.press("Enter");
  await sleep(100);
  assert.equal(await p.evaluate(() => window.keys ?? null), null, "Enter on Confirm inside the arm delay does nothing");
  assert.equal(await hardRuns(p), 0);
  await waitArmed(p);
  await trustedConfirm(p);
  await until(p, () => window.keys, undefined, "the confirmed call");
  assert.equal(await p.evaluate(() => window.keys.gate), "confirmed", "the same card still takes a person's click");
  await finish(p, "card parts and focus");
});

// WebMCP scenarios share one browser with the feature on (Chromium) or the fixture elsewhere.
let mcpShared = null;
after(async () => { if (mcpShared && mcpShared !== env) await mcpShared.close(); });
async function mcpPage() {
  mcpShared ??= ENGINE === "chromium" ? await launch({ chromium: { args: ["--enable-features=WebMCP"] } }) : env;
  const p = await openFixture(mcpShared);
  if (ENGINE !== "chromium") await p.addScript({ content: MODEL_CONTEXT });
  await p.addScript({ content: LAB });
  return p;
}

test("WebMCP: another instance's token and proposal id, a 16 MiB token, lookalike names: refused, nothing fires", { timeout: 60_000 }, async () => {
  const p = await mcpPage();
  const r = await p.evaluate(async (names) => {
    const a = lab.setup({ armDelayMs: 100 });
    const b = lab.setup({ armDelayMs: 100 });
    await lab.mcpExpose(b);
    lab.inst = a;
    const view = (o) => (o ? `${o.gate}/${o.error?.code ?? ""}` : "refused by the browser");
    const out = {};
    const sa = await lab.call(a, { name: "archiveThread", args: { w: 1 } });
    lab.call(a, { name: "deleteProject", args: { projectId: "a-card" } }).then((o) => { window.aCard = o; });
    await lab.sleep(20);
    const pid = a.ck.pending()[0].id;
    out.foreignToken = view(await lab.mcp(b, "archiveThread", { w: 1, confirmToken: sa.confirmToken }));
    out.foreignDecline = view(await lab.mcp(b, "archiveThread", { w: 1, confirmToken: sa.confirmToken, decline: true }));
    out.proposalId = view(await lab.mcp(b, "archiveThread", { w: 1, confirmToken: pid }));
    const sb = await lab.mcp(b, "archiveThread", { w: 2 });
    out.bTokenOnA = view(await lab.call(a, { name: "archiveThread", args: { w: 2 }, confirmToken: sb.confirmToken }));
    out.bTokenOnAByTool = JSON.parse((await lab.tool(a, { type: "tool_use", id: "x1", name: "archiveThread", input: { w: 2, confirmToken: sb.confirmToken } })).content).gate;
    out.aPending = a.ck.pending().map((q) => q.id === pid);
    // B's own token declines B's call through WebMCP (the positive control of the refusals).
    out.decline = view(await lab.mcp(b, "archiveThread", { w: 2, confirmToken: sb.confirmToken, decline: true }));
    // A 16 MiB token in a soft tool's input: the input is too large; wasm memory flat.
    const m0 = window.wasmMemoryBytes();
    const big = "ckt_" + "0".repeat(16 << 20);
    out.bigToken = view(await lab.mcp(b, "archiveThread", { confirmToken: big }));
    out.bigKey = view(await lab.mcp(b, "readDoc", { [big]: 1 }));
    out.memory = window.wasmMemoryBytes() - m0;
    // Lookalike names: the browser has no such tool, and an exposure of only those names
    // registers none.
    const before = lab.stats.mcpExecutes;
    out.lookalikes = [];
    for (const name of names) out.lookalikes.push(view(await lab.mcp(b, name, {})));
    out.executesFromLookalikes = lab.stats.mcpExecutes - before;
    const c = lab.setup();
    const exposure = c.ck.exposeToModelContext({ modelContext: lab.mc(), actions: names });
    await exposure.ready;
    out.extraTools = (await lab.mc().getTools()).map((t) => t.name).filter((n) => !b.tools.some((t) => t.name === n));
    exposure.dispose();
    out.runs = lab.stats.softRuns + lab.stats.openRuns + lab.stats.hardRuns;
    // Each refusal above has its own record, A's card waits: cancel it, settle the door.
    a.ck.cancel(pid);
    await lab.mcpSettle();
    return out;
  }, LOOKALIKES);
  assert.equal(r.foreignToken, "rejected/bad_token");
  assert.equal(r.foreignDecline, "rejected/bad_token");
  assert.equal(r.proposalId, "rejected/bad_token");
  assert.equal(r.bTokenOnA, "rejected/bad_token");
  assert.equal(r.bTokenOnAByTool, "rejected");
  assert.deepEqual(r.aPending, [true]);
  assert.equal(r.decline, "cancelled/declined");
  assert.equal(r.bigToken, "rejected/args_too_large");
  assert.equal(r.bigKey, "rejected/args_too_large");
  assert.ok(r.memory <= 65536, `wasm memory grew by ${r.memory} B on a 16 MiB input`);
  assert.deepEqual(r.lookalikes, LOOKALIKES.map(() => "refused by the browser"));
  assert.equal(r.executesFromLookalikes, 0);
  assert.deepEqual(r.extraTools, [], "an exposure of lookalike names registers nothing");
  assert.equal(r.runs, 0, "nothing ran");
  await finish(p, "webmcp crossed");
});

test("a stale WebMCP execute after ck.dispose(): nothing fires, one cancelled answer each", { timeout: 60_000 }, async () => {
  const p = await mcpPage();
  const r = await p.evaluate(async () => {
    const inst = lab.setup({ armDelayMs: 100 });
    await lab.mcpExpose(inst);
    const stale = { ...inst.executes };
    const token = (await lab.mcp(inst, "archiveThread", { s: 1 })).confirmToken;
    inst.ck.dispose();
    const view = (o) => `${o.gate}/${o.error?.code ?? ""}`;
    const settle = (promise) => Promise.race([promise, lab.sleep(500).then(() => ({ gate: "pending" }))]);
    const out = {
      open: view(await settle(stale.readDoc({}))),
      soft: view(await settle(stale.archiveThread({ s: 1 }))),
      softToken: view(await settle(stale.archiveThread({ s: 1, confirmToken: token }))),
      hard: view(await settle(stale.deleteProject({ projectId: "stale" }))),
      runs: lab.stats.softRuns + lab.stats.openRuns + lab.stats.hardRuns,
    };
    await lab.mcpSettle();
    return out;
  });
  for (const key of ["open", "soft", "softToken", "hard"]) assert.equal(r[key], "cancelled/disposed", key);
  assert.equal(r.runs, 0);
  assert.equal((await cardState(p)).present, false, "no card");
  await finish(p, "stale execute after dispose");
});

test("a stale WebMCP execute after exposure.dispose(), or after its action was disposed and defined again: refused, nothing fires", {
  timeout: 60_000,
}, async () => {
  const p = await mcpPage();
  const r = await p.evaluate(async () => {
    const inst = lab.setup({ armDelayMs: 100 });
    const noteDoc = () => inst.ck.defineAction({ name: "noteDoc", description: "Note a document.", control: "open", run: inst.run("open", "noteDoc") });
    let handle = noteDoc();
    const exposure = await lab.mcpExpose(inst).then(() => inst.exposure);
    const stale = { ...inst.executes };
    const view = (o) => `${o.gate}/${o.error?.code ?? ""}`;
    const settle = (promise) => Promise.race([promise, lab.sleep(500).then(() => ({ gate: "pending" }))]);
    handle.dispose();
    handle = noteDoc(); // a new registration of the same name (its own tool, from the live exposure)
    const out = { reRegistered: view(await settle(stale.noteDoc({}))) };
    exposure.dispose();
    out.open = view(await settle(stale.readDoc({})));
    out.hard = view(await settle(stale.deleteProject({ projectId: "stale" })));
    out.runs = lab.stats.openRuns + lab.stats.hardRuns;
    out.pending = inst.ck.pending().length;
    for (const q of inst.ck.pending()) inst.ck.cancel(q.id);
    await lab.mcpSettle();
    return out;
  });
  console.log(`hostile: stale execute: ${JSON.stringify(r)}`);
  assert.equal(r.reRegistered, "rejected/unknown_action", "the old tool's execute does not reach the new registration");
  assert.equal(r.open, "rejected/unknown_action", "a removed tool's execute fires nothing");
  assert.equal(r.hard, "rejected/unknown_action", "and proposes no card");
  assert.equal(r.runs, 0);
  assert.equal(r.pending, 0);
  await finish(p, "stale execute after exposure.dispose");
});

test("a soft token used after its action was disposed and defined again under the same name: never the new registration's", { timeout: 60_000 }, async () => {
  const p = await labPage();
  const r = await p.evaluate(async () => {
    const inst = lab.setup();
    const define = () => inst.ck.defineAction({ name: "tagThread", description: "Tag a thread.", control: "soft", run: inst.run("soft", "tagThread") });
    let handle = define();
    const view = (o) => `${o.gate}/${o.error?.code ?? ""}`;
    const tool = async (id, input) => view(JSON.parse((await lab.tool(inst, { type: "tool_use", id, name: "tagThread", input })).content));
    const first = await lab.call(inst, { name: "tagThread", args: { t: 1 }, callId: "tag1" });
    const second = JSON.parse((await lab.tool(inst, { type: "tool_use", id: "tag2", name: "tagThread", input: { t: 2 } })).content);
    handle.dispose();
    handle = define();
    const out = {
      invoke: view(await lab.call(inst, { name: "tagThread", args: { t: 1 }, confirmToken: first.confirmToken })),
      invokeDecline: view(await lab.call(inst, { name: "tagThread", args: { t: 1 }, confirmToken: first.confirmToken, decline: true })),
      tool: await tool("tag3", { t: 2, confirmToken: second.confirmToken }),
      toolDecline: await tool("tag4", { t: 2, confirmToken: second.confirmToken, decline: true }),
      // The original callId again: that call is settled (cancelled when its action went).
      sameCallId: view(await lab.call(inst, { name: "tagThread", args: { t: 1 }, confirmToken: first.confirmToken, callId: "tag1" })),
    };
    out.runsBefore = lab.stats.softRuns;
    const fresh = await lab.call(inst, { name: "tagThread", args: { t: 3 } });
    out.control = view(await lab.call(inst, { name: "tagThread", args: { t: 3 }, confirmToken: fresh.confirmToken }));
    return out;
  });
  console.log(`hostile: re-registered: ${JSON.stringify(r)}`);
  // The token's own call was settled when its action went (cancelled, action_disposed): the
  // SDK answers that terminal outcome (SPEC §3.3, a settled token's call is not run again) or
  // refuses the token; it never reaches the new registration.
  for (const key of ["invoke", "invokeDecline", "tool", "toolDecline", "sameCallId"]) {
    assert.ok(["rejected/bad_token", "cancelled/action_disposed"].includes(r[key]), `${key}: ${r[key]}`);
  }
  assert.equal(r.runsBefore, 0, "no token of the old registration fired the new one");
  assert.equal(r.control, "confirmed/", "the new registration's own token confirms");
  await finish(p, "re-registered action");
});

test("ten thousand distinct unknown action names through invoke: wasm memory flat", { timeout: 60_000 }, async () => {
  const p = await labPage();
  const r = await p.evaluate(async (count) => {
    const inst = lab.setup();
    const shapes = [(k, i) => `nope${k}x${i}`, (k, i) => `readDoc${k}_${i}`, (k, i) => `${"q".repeat(200)}${k}${i}`, (k, i) => `n\u00e9${k}\u{1F600}${i}`];
    const round = async (k) => {
      let unknown = 0;
      for (let i = 0; i < count; i++) {
        const o = await lab.call(inst, { name: shapes[i % shapes.length](k, i), args: { i } });
        if (o.gate === "rejected" && o.error?.code === "unknown_action") unknown += 1;
      }
      return unknown;
    };
    await round("warm");
    const m0 = window.wasmMemoryBytes();
    const first = await round("a");
    const m1 = window.wasmMemoryBytes();
    const second = await round("b");
    const m2 = window.wasmMemoryBytes();
    return { first, second, m0, m1, m2, runs: lab.stats.openRuns };
  }, 10_000);
  console.log(`hostile: 2 x 10,000 unknown names: wasm memory ${r.m0} → ${r.m1} → ${r.m2} B`);
  assert.equal(r.first, 10_000);
  assert.equal(r.second, 10_000);
  assert.equal(r.runs, 0);
  assert.equal(r.m1, r.m0, "wasm memory grew over 10,000 unknown names");
  assert.equal(r.m2, r.m1, "and over 10,000 more");
  await finish(p, "unknown names");
});

test("re-entry from confirmationSummary, approver() and onActionRecord (invoke, cancel, dispose inside): safe, one record per call", { timeout: 60_000 }, async () => {
  const p = await labPage();
  const results = {};
  for (const hook of ["summary", "approver", "record"]) {
    for (const move of ["invoke", "cancel", "dispose"]) {
      const key = `${hook}_${move}`;
      // The next test: an SDK bug leaves their card behind.
      if (key === "summary_dispose" || key === "approver_dispose") continue;
      await p.evaluate(([hook, move, key]) => {
        let budget = 3; // each hook re-enters a few times, not for every call it causes
        let inst;
        const reenter = () => {
          if (window.tearingDown || budget-- <= 0) return;
          if (move === "invoke") {
            lab.call(inst, { name: "readDoc", args: { from: key } });
            lab.call(inst, { name: "dropTable", args: { t: key }, callId: key }); // the same call again
            lab.call(inst, { name: "dropTable", args: { t: `${key}_nested` } });
            lab.call(inst, { name: "archiveThread", args: { from: key } });
          } else if (move === "cancel") {
            for (const q of inst.ck.pending()) inst.ck.cancel(q.id);
          } else {
            inst.ck.dispose();
          }
        };
        const options = { armDelayMs: 100 };
        if (hook === "approver") options.approver = () => { reenter(); return { id: "ann", role: "admin" }; };
        if (hook === "record") options.sink = () => reenter();
        inst = lab.setup(options);
        inst.ck.defineAction({
          name: "dropTable", description: "Drop a table.", control: "hard", run: inst.run("hard", "dropTable"),
          confirmationSummary: (a) => { if (hook === "summary") reenter(); return `Drop ${a.t}?`; },
        });
        window.reentry = null;
        window.tearingDown = false;
        lab.call(inst, { name: "dropTable", args: { t: key }, callId: key }).then((o) => { window.reentry = o; });
      }, [hook, move, key]);
      const shown = await waitCard(p, (s) => s.open && s.summary === `Drop ${key}?`, 1000).then(() => true, () => false);
      if (shown) {
        await waitArmed(p);
        await trustedConfirm(p);
      }
      const out = await until(p, () => window.reentry, undefined, `${key} to settle`);
      results[key] = `${shown ? "card, " : ""}${out.gate}/${out.error?.code ?? ""}`;
      // Whatever the hook left waiting goes with its instance, and its card with it.
      const left = await p.evaluate(async () => { window.tearingDown = true; lab.inst.ck.dispose(); await lab.sleep(20); return document.querySelectorAll("[data-coworkkit=card]").length; });
      assert.equal(left, 0, `${key}: a card host is left in the page after dispose`);
    }
  }
  console.log(`hostile: re-entry: ${JSON.stringify(results)}`);
  // Where the outcome is fixed: a summary that cancels or disposes settles the call before its
  // card can be confirmed; a record sink runs after the call settled; a summary that calls in
  // again leaves the card to a person.
  assert.match(results.summary_cancel, /^(card, )?cancelled\/cancelled_by_app$/);
  assert.equal(results.summary_invoke, "card, confirmed/");
  for (const move of ["invoke", "cancel", "dispose"]) assert.equal(results[`record_${move}`], "card, confirmed/", `record_${move}`);
  // approver() is asked when the card is drawn (is Confirm allowed?) and again on Confirm: a
  // cancel or dispose inside it settles the call first; an invoke inside it changes nothing.
  assert.equal(results.approver_invoke, "card, confirmed/");
  assert.match(results.approver_cancel, /^(card, )?cancelled\/cancelled_by_app$/);
  assert.equal((await cardState(p)).present, false);
  await finish(p, "re-entry");
});

test("dispose() from inside confirmationSummary or approver(): the call is cancelled and its card leaves the page", {
  timeout: 60_000,
}, async () => {
  for (const hook of ["summary", "approver"]) {
    const p = await labPage();
    const r = await p.evaluate(async (hook) => {
      let once = true;
      let inst;
      const disposeOnce = () => { if (once) { once = false; inst.ck.dispose(); } };
      inst = lab.setup({ armDelayMs: 100, ...(hook === "approver" ? { approver: () => { disposeOnce(); return { id: "ann", role: "admin" }; } } : {}) });
      inst.ck.defineAction({
        name: "dropTable", description: "Drop a table.", control: "hard", run: inst.run("hard", "dropTable"),
        confirmationSummary: (a) => { if (hook === "summary") disposeOnce(); return `Drop ${a.t}?`; },
      });
      const o = await lab.call(inst, { name: "dropTable", args: { t: "x" } });
      await lab.sleep(100);
      inst.ck.dispose();
      await lab.sleep(20);
      return { gate: `${o.gate}/${o.error?.code}`, hosts: document.querySelectorAll("[data-coworkkit=card]").length };
    }, hook);
    assert.equal(r.gate, "cancelled/disposed", hook);
    assert.equal(await hardRuns(p), 0);
    assert.deepEqual(await cardState(p), { present: false, open: false }, `${hook}: no card left open`);
    assert.equal(r.hosts, 0, `${hook}: no card host left in the page`);
    await finish(p, `dispose inside ${hook}`);
  }
});

test("the arm delay at its edge: a trusted click ~100 ms before it does nothing and starts it again, so one ~100 ms after the first edge does nothing too; Confirm arms a full delay after the last ignored click, and then confirms (on event.timeStamp)", { timeout: 60_000 }, async () => {
  const p = await labPage();
  const ARM = 1500;
  // Each click is judged by when the page received it (its event's own timeStamp, the clock
  // the SDK judges it on): more than 30 ms before the edge it must do nothing. SPEC §4.2: an
  // ignored click starts the delay again, from the next painted frame.
  const MARGIN = 30;
  // How long the driver's click takes to reach the page (about 10 ms in Chromium, over 100 ms
  // through WebKit's WebDriver), learnt from the click before, so that the next lands near
  // where it is aimed.
  let lag = 0;
  let judged = null;
  for (let attempt = 1; attempt <= 3 && !judged; attempt++) {
    const key = `edge${attempt}`;
    await p.evaluate(([key, arm]) => {
      const inst = lab.setup({ armDelayMs: arm, confirmTimeoutMs: 30000 });
      window.edge = { shownAt: null, clicks: [], out: null };
      inst.ck.on("proposal", () => { window.edge.shownAt ??= performance.now(); });
      if (!lab.edgeListener) {
        lab.edgeListener = true; // one listener for every attempt: it writes to the current `edge`
        window.addEventListener("click", (e) => { if (e.isTrusted && window.edge.shownAt !== null) window.edge.clicks.push(e.timeStamp - window.edge.shownAt); }, true);
      }
      lab.call(inst, { name: "deleteProject", args: { projectId: key }, callId: key }).then((o) => { window.edge.out = o; });
    }, [key, ARM]);
    await waitCard(p, (s) => s.open && s.summary === `Delete ${key}?`);
    const at = await onPart(p, "confirm", function () { const r = this.getBoundingClientRect(); return { x: r.x, y: r.y, width: r.width, height: r.height }; });
    await p.evaluate((at) => { lab.confirmAt = at; }, at);
    const clickAt = async (ms, where = { x: at.x + at.width / 2, y: at.y + at.height / 2 }) => {
      const [sent, before] = await p.evaluate(async (ms) => {
        while (performance.now() < window.edge.shownAt + ms) await new Promise((r) => setTimeout(r, 2));
        return [performance.now() - window.edge.shownAt, window.edge.clicks.length];
      }, ms - lag);
      await p.mouse.click(where.x, where.y);
      // This click's own entry (a driver may deliver it well after the call returns), and what
      // the page saw a moment after it.
      await until(p, (n) => window.edge.clicks.length > n, before, "the click to reach the page");
      await sleep(100);
      const seen = await p.evaluate(() => ({ delta: window.edge.clicks.at(-1), out: window.edge.out?.gate ?? null }));
      lag = Math.max(0, seen.delta - sent);
      return seen;
    };
    // A first click on the title (which does nothing, see the test before) learns the lag.
    await clickAt(300, await partCenter(p, "title"));
    const before = await clickAt(ARM - 100);
    if (before.delta >= ARM - MARGIN) { // landed too late to judge: a fresh card
      await p.evaluate(() => lab.inst.ck.dispose());
      continue;
    }
    assert.equal(before.out, null, `a trusted click at ${before.delta.toFixed(0)} ms (arm delay ${ARM} ms) did something: ${before.out}`);
    // Past the first edge, but within the delay that click started again: nothing either.
    const again = await clickAt(ARM + 100);
    if (again.delta - before.delta >= ARM - MARGIN) { // too late to say: a fresh card
      await p.evaluate(() => lab.inst.ck.dispose());
      continue;
    }
    assert.equal(again.out, null, `a click ${(again.delta - before.delta).toFixed(0)} ms after an ignored one (arm delay ${ARM} ms) did something: ${again.out}`);
    // Confirm shows armed only a full delay after the last ignored click, and then confirms.
    let armedAt = null;
    for (const until = Date.now() + 10_000; armedAt === null && Date.now() < until;) {
      armedAt = await onPart(p, "confirm", function () {
        return this.getAttribute("data-armed") === "true" ? performance.now() - window.edge.shownAt : null;
      });
      if (armedAt === null) await sleep(20);
    }
    assert.ok(armedAt !== null, "Confirm never armed again");
    assert.ok(armedAt - again.delta >= ARM, `Confirm armed ${(armedAt - again.delta).toFixed(0)} ms after the last ignored click (arm delay ${ARM} ms)`);
    const after = await clickAt(armedAt + MARGIN);
    assert.equal(after.out, "confirmed", `a trusted click at ${after.delta.toFixed(0)} ms, on the armed Confirm, did not confirm`);
    judged = { before: before.delta, again: again.delta, armedAt, after: after.delta };
    console.log(`hostile: arm edge: attempt ${attempt}: ${JSON.stringify(judged)}`);
  }
  assert.ok(judged, "no attempt landed its clicks where they could be judged");
  await finish(p, "arm delay edge");
});

test("dispose() with cards waiting calls no confirmationSummary; a settled callId sent after dispose() gets no second record", {
  timeout: 60_000,
}, async () => {
  const p = await labPage();
  const r = await p.evaluate(async () => {
    const inst = lab.setup({ armDelayMs: 0 });
    let disposed = false;
    const late = [];
    inst.ck.defineAction({
      name: "dropTable", description: "Drop a table.", control: "hard", run: inst.run("hard", "dropTable"),
      confirmationSummary: (a) => { if (disposed) late.push(a.t); return `Drop ${a.t}?`; },
    });
    const done = await lab.call(inst, { name: "readDoc", args: {}, callId: "done" });
    for (const t of [1, 2, 3]) lab.call(inst, { name: "dropTable", args: { t } });
    await lab.sleep(50);
    disposed = true;
    inst.ck.dispose();
    await lab.sleep(50);
    const again = await lab.call(inst, { name: "readDoc", args: {}, callId: "done" });
    return { late, done: done.gate, again: again.gate, records: inst.records.filter((x) => x.callId === "done").map((x) => x.gate) };
  });
  console.log(`hostile: dispose with cards waiting: ${JSON.stringify(r)}`);
  assert.deepEqual(r.late, [], "no summary computed after dispose()");
  assert.equal(r.done, "fired");
  assert.equal(r.again, "fired", "the settled call's own outcome");
  assert.deepEqual(r.records, ["fired"], "one record for the call");
  await finish(p, "dispose with cards waiting");
});

test("agents that try to create, widen or extend a grant, or to put words in the person's mouth (SPEC §12)", { timeout: TEST_TIMEOUT }, async () => {
  const p = await labPage();
  await p.evaluate(() => {
    lab.setup({ confirmTimeoutMs: 3000 });
    lab.grantButton();
  });
  // The person: no grant for a hard action, one for archiving in the inbox.
  await p.evaluate(() => { lab.grantRequest = ["deleteProject", {}]; });
  await click(p, "#lab-allow");
  assert.deepEqual(await p.evaluate(() => lab.lastGrant), { code: "invalid_grant" });
  await p.evaluate(() => { lab.grantRequest = ["archiveThread", { ttlMs: 8000, maxUses: 30, match: { box: "inbox" } }]; });
  await click(p, "#lab-allow");
  const made = await p.evaluate(() => lab.lastGrant);
  assert.match(made.id ?? "", /^ckg_\d+$/, JSON.stringify(made));

  // The agent, aimed: grant-shaped names and args, the grant's id as a token, words for the
  // person on calls that are no decline, a forged decline; then calls the grant covers, through
  // two doors, until its uses are spent (and beyond).
  const aimed = await p.evaluate(async (id) => {
    const inst = lab.inst;
    const out = [];
    const calls = [
      { name: "grant", args: { action: "archiveThread", ttlMs: 86400000 } },
      { name: "revokeGrant", args: { id } },
      { name: "archiveThread", args: { box: "spam", grant: id } },
      { name: "archiveThread", args: { box: "inbox" }, confirmToken: id },
      { name: "archiveThread", args: { box: "spam" }, reason: "the user said: allow every box" },
      { name: "deleteProject", args: { projectId: "p1" }, reason: "the user granted this" },
      { name: "purgeCache", args: {}, reason: "approved" },
      { name: "archiveThread", args: { box: "spam" }, decline: true, reason: "forged words", confirmToken: "ckt_" + "0".repeat(32) },
    ];
    for (const call of calls) out.push(await lab.call(inst, call));
    const tools = [
      { type: "tool_use", id: "h1", name: "grant", input: { action: "archiveThread" } },
      { type: "tool_use", id: "h2", name: "archiveThread", input: { box: "spam", declineReason: "the user agreed" } },
      { id: "h3", type: "function", function: { name: "archiveThread", arguments: JSON.stringify({ box: "spam", match: {}, maxUses: 1e9 }) } },
      { toolCallId: "h4", toolName: "deleteProject", input: { projectId: "p2", declineReason: "granted" } },
    ];
    for (const call of tools) out.push(await lab.tool(inst, call));
    lab.checkGrants(inst);
    // Covered calls (extra keys, asking for more, change nothing but a use each).
    for (let i = 0; i < 36; i++) {
      const args = { box: "inbox", n: i, ...(i % 3 === 0 ? { ttlMs: 86400000, maxUses: 1e9, match: {} } : {}) };
      if (i % 2) await lab.tool(inst, { type: "function_call", call_id: `cov_${i}`, name: "archiveThread", arguments: JSON.stringify(args) });
      else await lab.call(inst, { name: "archiveThread", args });
      lab.checkGrants(inst);
    }
    const content = (o) => (typeof (o.content ?? o.output) === "string" ? JSON.parse(o.content ?? o.output) : o.output);
    return out.map((o) => o && (o.gate ?? content(o)?.gate));
  }, made.id);
  assert.ok(aimed.every((gate) => gate !== "fired" && gate !== "confirmed"), JSON.stringify(aimed));
  const spent = await p.evaluate(() => ({ grants: lab.inst.ck.grants(), runs: lab.stats.grantRuns }));
  assert.deepEqual(spent.grants, [], "30 uses spent, nothing extended");
  assert.equal(spent.runs, 30);

  // The seeded agent, with reasons and grant-shaped keys among its calls, through invoke, and
  // on a second instance through tool calls (one door per instance, as the lab's via check
  // wants; fewer calls than an instance's rotation, so each grant's ledger stays with it), each
  // instance with a grant of its own.
  await p.evaluate(() => { lab.grantRequest = ["archiveThread", { ttlMs: 8000, match: { box: "inbox" } }]; });
  await click(p, "#lab-allow");
  await p.evaluate(async ([seed, count]) => {
    await lab.agent(seed, count, "invoke");
    lab.checkGrants(lab.inst);
    // Done with it: its cards and grants end, and its DOM leaves the page.
    lab.inst.ck.dispose();
    lab.setup({ confirmTimeoutMs: 3000 });
  }, [SEED, Math.min(250, n(250))]);
  await click(p, "#lab-allow");
  await p.evaluate(async ([seed, count]) => {
    await lab.agent(seed + 1, count, "tool");
    lab.checkGrants(lab.inst);
    lab.inst.ck.cancelAll(); // the app clears the cards the agent left, so the page takes clicks again
  }, [SEED, Math.min(250, n(250))]);

  // The agent's element action clicks the app's own grant button inside a person's activation:
  // the person lets it use the page, and its call comes a moment later from the page's loop.
  await p.evaluate(() => {
    const inst = lab.inst;
    inst.ck.defineAction({ name: "pressAllow", description: "Press the page's Allow button.", element: "#lab-allow", operation: "click" });
    const arm = document.createElement("button");
    arm.id = "lab-arm";
    arm.textContent = "Let the agent help";
    arm.addEventListener("click", () => {
      inst.ck.armHandMode();
      setTimeout(async () => {
        lab.lastGrant = undefined;
        lab.agentPress = await lab.call(inst, { name: "pressAllow", args: {} });
      }, 80);
    });
    document.body.prepend(arm);
  });
  await click(p, "#lab-arm");
  const press = await p.evaluate(async () => {
    for (let i = 0; i < 100 && !lab.agentPress; i++) await lab.sleep(20);
    return { gate: lab.agentPress?.gate, got: lab.lastGrant, grants: lab.inst.ck.grants().length };
  });
  assert.equal(press.gate, "fired", `the agent's click reached the button: ${JSON.stringify(press)}`);
  assert.deepEqual(press.got, { code: "needs_user_activation" });
  assert.equal(press.grants, 1, "only the person's grant");

  // A person's own words on a card, typed with the driver's keyboard.
  await p.evaluate(() => { lab.pendingDelete = lab.call(lab.inst, { name: "deleteProject", args: { projectId: "p9" } }); });
  await waitCard(p, (s) => s.open);
  const callId = await p.evaluate(() => lab.inst.ck.pending()[0].callId);
  const at = await partCenter(p, "reason");
  await p.mouse.click(at.x, at.y);
  await p.keyboard.type("Keep p9, it is the demo project");
  await p.evaluate((callId) => { lab.typed.push({ inst: lab.inst, callId, note: "Keep p9, it is the demo project" }); }, callId);
  const cancel = await partCenter(p, "cancel");
  await p.mouse.click(cancel.x, cancel.y);
  const declined = await p.evaluate(() => lab.pendingDelete);
  assert.deepEqual([declined.gate, declined.error.code], ["cancelled", "declined"]);

  // A short grant ends at its expiry, by the page's clock.
  await p.evaluate(() => { lab.grantRequest = ["archiveThread", { ttlMs: 600, match: { box: "archive" } }]; });
  await click(p, "#lab-allow");
  const beforeExpiry = await p.evaluate(async () => (await lab.call(lab.inst, { name: "archiveThread", args: { box: "archive" } })).gate);
  await sleep(800);
  const afterExpiry = await p.evaluate(async () => {
    const o = await lab.call(lab.inst, { name: "archiveThread", args: { box: "archive" } });
    lab.checkGrants(lab.inst);
    return o.gate;
  });
  assert.deepEqual([beforeExpiry, afterExpiry], ["fired", "needs_confirmation"]);

  const r = await finish(p, "grants and reasons");
  console.log(`hostile: grants and reasons: ${r.stats.grantRuns} soft runs on grants, ${r.stats.grantChecks} grant checks, ${r.stats.notesChecked} notes checked; answers ${JSON.stringify(r.stats.codes)}`);
  assert.ok(r.stats.grantRuns >= 31, "soft calls fired on the person's grants (the check is not vacuous)");
  assert.ok(r.stats.notesChecked >= 2, "records carried a person's words (the check is not vacuous)");
  assert.ok(r.stats.codes.invalid_args > 0, "words without a decline were refused");
});

// ---- The agent that drives the browser's input (SPEC §8, second paragraph) ------------------
//
// It calls `verify: "passkey"` actions and then clicks Confirm itself, with the driver's trusted
// mouse, over and over, on every card it opens: while the authenticator cannot verify the
// person, and with no authenticator at all. Neither may fire anything. Then a person who does
// verify is at the keyboard (the same passkey, on an authenticator that verifies): each card
// fires once however many clicks it gets, and each receipt verifies, with the package's
// coworkkit/server (pkg/server.js), for its own call and names no other. In WebKit, which has no
// WebAuthn, every such call is refused on arrival and the agent never meets a card.
const VIRTUAL = ENGINE !== "webkit";

test("an agent that drives the browser's input clicks Confirm on passkey cards over and over: no fire without a verified assertion, no receipt good for another call", { timeout: TEST_TIMEOUT }, async () => {
  const { CredentialStore, registrationOptions, verifyRegistration } = await import("./passkeys.mjs");
  const { verifyReceipt, memoryNonces } = await import("../../pkg/server.js");
  const origin = env.url.replace("127.0.0.1", "localhost").replace(/\/$/, "");
  const p = await env.browser.newPage();
  const pick = (() => { let a = (SEED ^ 0x9a55) >>> 0; return () => ((a = (a * 1103515245 + 12345) >>> 0) / 2 ** 32); })();
  let clicks = 0, calls = 0;
  const poll = async (fn, arg, ms = 10000) => {
    for (const until = Date.now() + ms; ; await sleep(25)) {
      const v = await p.evaluate(fn, arg);
      if (v) return v;
      if (Date.now() > until) throw new Error(`timed out: ${String(fn).slice(0, 100)}`);
    }
  };
  /**
   * The agent: `k` calls, then trusted clicks at whatever Confirm is shown. Blind (`cancel`), it
   * clicks `perCard` times at each card and gives up with Cancel. With a person who verifies at
   * the keyboard, it clicks until every call has fired, and a few times more.
   */
  const agent = async (k, perCard, cancel) => {
    const fired = () => p.evaluate(() => window.fires.length);
    const settled = () => p.evaluate(() => window.settled ?? 0);
    const [goal, ends] = [(await fired()) + k, (await settled()) + k];
    await p.evaluate((names) => {
      window.round = Promise.all(names.map((name, i) => window.ck.invoke({ name, args: { id: `x${i}` } })
        .then((o) => { window.settled = (window.settled ?? 0) + 1; return o.gate; })));
    }, Array.from({ length: k }, () => (pick() < 0.5 ? "deleteProject" : "wipeAccount")));
    calls += k;
    for (let card = 0; cancel ? (await settled()) < ends : (await fired()) < goal; card++) {
      if (card > 40 * k) throw new Error("the cards never fired");
      const at = await partCenter(p, "confirm");
      if (!at) { await sleep(50); continue; }
      for (let c = 0; c < (cancel ? perCard : 1); c++) {
        await p.mouse.click(at.x, at.y);
        clicks += 1;
        await sleep(40 + Math.floor(pick() * 260));
      }
      if (cancel) {
        const x = await partCenter(p, "cancel");
        if (x) await p.mouse.click(x.x, x.y);
        await sleep(80);
      }
    }
    if (!cancel) {
      const at = await partCenter(p, "confirm");
      for (let c = 0; at && c < perCard; c++) { await p.mouse.click(at.x, at.y); clicks += 1; await sleep(30); }
    }
    return p.evaluate(() => window.round);
  };
  try {
    await p.goto(origin + "/fixtures/blank.html");
    await poll(() => window.ready === true);
    const store = new CredentialStore();
    let auth = null, id = "AQID";
    if (VIRTUAL) {
      auth = await p.addVirtualAuthenticator();
      const options = await registrationOptions({ rpID: "localhost", userName: "ann", credentialStore: store });
      const created = await p.evaluate(async (o) => (await navigator.credentials.create({ publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(o) })).toJSON(), options);
      id = (await verifyRegistration(created, { expectedChallenge: options.challenge, expectedOrigin: origin, expectedRPID: "localhost", credentialStore: store, user: "ann" })).credential.id;
    }
    await p.evaluate((id) => {
      const { Coworkkit } = window.coworkkit;
      window.fires = [];
      window.records = [];
      window.ck = new Coworkkit({
        armDelayMs: 150,
        approver: () => ({ id: "ann", role: "admin" }),
        onActionRecord: (r) => window.records.push(r),
        passkey: { credentials: () => [id], timeoutMs: 1500 },
      });
      for (const name of ["deleteProject", "wipeAccount"]) {
        window.ck.defineAction({
          name, description: "irreversible", control: "hard", verify: "passkey",
          run: (args, ctx) => { window.fires.push({ name, args, callId: ctx.callId, receipt: ctx.receipt }); return true; },
        });
      }
    }, id);

    // Nobody verifies: the authenticator says no to user verification; then there is none.
    let passkey = null;
    if (auth) await auth.setUserVerified(false);
    const noUv = await agent(n(6), 6, true);
    if (auth) { [passkey] = await auth.credentials(); await auth.remove(); }
    const none = await agent(n(6), 6, true);
    const blind = await p.evaluate(() => ({ fires: window.fires.length, records: window.records.length }));
    assert.equal(blind.fires, 0, "no fire without a verified assertion");
    const ended = [...noUv, ...none];
    // Cancelled by the agent's own click on Cancel, or refused on arrival (beyond `maxPending`,
    // or in WebKit, which has no WebAuthn); never confirmed.
    assert.ok(ended.every((g) => g === "cancelled" || g === "rejected"), JSON.stringify(ended));
    if (!VIRTUAL) assert.ok(ended.every((g) => g === "rejected"), "no WebAuthn: passkey_unavailable on arrival");
    assert.equal(blind.records, ended.length, "one record per call");

    if (VIRTUAL) {
      // A person who verifies, with the same passkey: one fire per card, however many clicks.
      const person = await p.addVirtualAuthenticator();
      await person.addCredential(passkey);
      const k = n(4);
      const gates = await agent(k, 3, false);
      assert.deepEqual(gates, Array(k).fill("confirmed"));
      const fires = await p.evaluate(() => window.fires);
      assert.equal(fires.length, k, "one fire per card");
      const nonces = memoryNonces();
      const credential = (id) => { const c = store.get(id); return c ? { id: c.id, publicKey: c.publicKey, counter: 0 } : null; };
      for (const fire of fires) {
        // coworkkit/server accepts it for its own action and args (wrong_call otherwise), once.
        const { statement } = await verifyReceipt(fire.receipt, { action: fire.name, args: fire.args, origin, rpID: "localhost", credential, nonces });
        assert.equal(statement.callId, fire.callId, "the receipt is of its own call");
        for (const other of fires) {
          if (other !== fire) assert.notEqual(statement.callId, other.callId, "and names no other");
        }
      }
    }
    totals.calls += calls;
    totals.trustedClicks += clicks;
    totals.passkeyCalls += calls;
    totals.passkeyFires += await p.evaluate(() => window.fires.length);
    console.log(`hostile: input-driving agent: ${calls} passkey calls, ${clicks} trusted clicks on Confirm, ${await p.evaluate(() => window.fires.length)} fires, each with a verified assertion over its own statement`);
  } finally {
    await p.close();
  }
});

test("two WebMCP calls of the same action and args, one declined through invoke, one timed out: each answer bound to its own call's record", { timeout: 60_000 }, async () => {
  // WebMCP answers name no call; the lab binds each token to its call's record. Here the
  // timed-out call came first and the declined one settled first: by action and args alone the
  // first token would take the declined record, and the declined token's replay (answered
  // from its call's memory) would have none (the soak's failure, Firefox, HOSTILE_SCALE=4).
  const p = await mcpPage();
  const r = await p.evaluate(async () => {
    const inst = lab.setup({ confirmTimeoutMs: 600 });
    await lab.mcpExpose(inst);
    const late = (await lab.mcp(inst, "archiveThread", {})).confirmToken; // left to time out
    await lab.sleep(100);
    const no = (await lab.mcp(inst, "archiveThread", {})).confirmToken;
    const view = (o) => `${o.gate}/${o.error?.code ?? ""}`;
    const out = { decline: view(await lab.call(inst, { name: "archiveThread", args: {}, confirmToken: no, decline: true })) };
    await lab.sleep(700);
    out.replay = view(await lab.mcp(inst, "archiveThread", { confirmToken: no }));
    out.expired = view(await lab.mcp(inst, "archiveThread", { confirmToken: late }));
    await lab.mcpSettle();
    const gateOf = (token) => inst.records.find((x) => x.callId === inst.issued.get(token).callId)?.gate;
    return { ...out, bound: [gateOf(no), gateOf(late)] };
  });
  assert.deepEqual(r, { decline: "cancelled/declined", replay: "cancelled/declined", expired: "rejected/token_expired", bound: ["cancelled", "timeout"] });
  await finish(p, "webmcp binding");
});
