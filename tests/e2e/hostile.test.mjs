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
import { launch, openFixture, onPart, click, cardState, waitCard, sleep, ENGINE } from "./harness.mjs";

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

test("an untrusted agent through invoke: thousands of random and adversarial calls", async () => {
  const p = await labPage();
  await p.evaluate(async ([seed, count]) => {
    lab.setup({ confirmTimeoutMs: 400, maxPending: 8 });
    await lab.agent(seed, count, "invoke", { expireEvery: 500, expireMs: 450 });
  }, [SEED, n(3000)]);
  const r = await finish(p, "invoke agent");
  assert.equal(r.stats.hardRuns, 0, "no click, no hard run");
  assert.ok(r.stats.softRuns > 0, "the agent's proper confirmations fired soft calls (the check is not vacuous)");
});

test("an untrusted agent through handleToolCall, in OpenAI Chat, OpenAI Responses, Anthropic and AI SDK shapes", async () => {
  const p = await labPage();
  await p.evaluate(async ([seed, count]) => {
    lab.setup({ confirmTimeoutMs: 400, maxPending: 8 });
    await lab.agent(seed + 1, count, "tool", { expireEvery: 500, expireMs: 450 });
  }, [SEED, n(2000)]);
  const r = await finish(p, "tool-call agent");
  assert.equal(r.stats.hardRuns, 0);
  assert.ok(r.stats.softRuns > 0, "soft calls confirmed through tool calls fired");
});

test("synthetic events at every element, the SDK's card included, never confirm", async () => {
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
      events += await onPart(p, part, synthetic);
    }
    events += await p.evaluate(atPageElements, synthetic.toString());
  }
  await sleep(50);
  assert.equal(await hardRuns(p), 0);
  assert.equal((await cardState(p)).open, true, "the card still waits");
  assert.equal(await p.evaluate(() => lab.inst.ck.pending().length), 1);
  // The positive control: on that same armed card, after all of it, a person's click confirms.
  const answer = (callId) => p.evaluate((callId) => lab.inst.answers.find((a) => a.callIds.includes(callId))?.gate ?? "pending", callId);
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
    events += await onPart(p, "confirm", fn);
    events += await onPart(p, "confirm", synthetic);
    await sleep(80);
    const gate = await answer(key);
    assert.ok(["cancelled", "pending"].includes(gate), `${how}: ${gate}`);
    if (gate === "pending") await p.evaluate(() => { for (const q of lab.inst.ck.pending()) lab.inst.ck.cancel(q.id); });
  }
  assert.equal(await hardRuns(p), 1);
  // And after every closer was tried, a fresh card still takes a person's click.
  await open("after_closers");
  events += await onPart(p, "confirm", synthetic);
  await trustedConfirm(p);
  await sleep(150);
  assert.equal(await answer("after_closers"), "confirmed");
  assert.equal(await hardRuns(p), 2);
  await p.evaluate((events) => { lab.stats.events += events; }, events);
  await finish(p, "synthetic events");
});

test("calls during the arm delay, and trusted clicks inside it, do nothing", async () => {
  const p = await labPage();
  await p.evaluate(() => {
    lab.setup({ armDelayMs: 1500 });
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
  await sleep(1500);
  await trustedConfirm(p);
  const outcome = await p.evaluate(() => window.first);
  assert.equal(outcome.gate, "confirmed");
  assert.deepEqual(await p.evaluate(() => window.same), outcome, "the same callId got the same outcome");
  assert.equal(await hardRuns(p), 1);
  await waitCard(p, (s) => s.open && s.summary === "Delete second?");
  await trustedConfirm(p); // the next card's own arm delay
  await sleep(150);
  assert.equal(await hardRuns(p), 1);
  await sleep(1500);
  await trustedConfirm(p);
  await sleep(100);
  assert.equal(await hardRuns(p), 2);
  await finish(p, "arm delay");
});

test("a flood of 10,000 invokes with 1,000 hard ones, twice: bounded and still working", async () => {
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
  await sleep(250);
  await trustedConfirm(p);
  await sleep(100);
  assert.equal(await hardRuns(p), 1, "a card still confirms after the flood");
  await finish(p, "flood");
});

test("run handlers that throw, reject, never resolve or re-enter invoke", async () => {
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
  await sleep(250);
  await trustedConfirm(p);
  await sleep(100);
  const hard = await p.evaluate(() => window.hardThrow);
  assert.deepEqual([hard.gate, hard.ok, hard.error.code], ["confirmed", false, "run_failed"]);
  await finish(p, "misbehaving runs");
});

test("a record sink and event listeners that throw break nothing", async () => {
  const p = await labPage();
  await p.evaluate(async (seed) => {
    const inst = lab.setup({ sink: () => { throw new Error("sink threw"); } });
    for (const kind of ["record", "proposal", "resolved"]) inst.ck.on(kind, () => { throw new Error(`${kind} listener threw`); });
    await lab.agent(seed + 5, 300, "invoke");
    for (const q of inst.ck.pending()) inst.ck.cancel(q.id);
    lab.call(inst, { name: "deleteProject", args: { projectId: "sink" }, callId: "sinkHard" }).then((o) => { window.sinkHard = o; });
  }, SEED);
  await waitCard(p, (s) => s.open && s.summary === "Delete sink?");
  await sleep(250);
  await trustedConfirm(p);
  await sleep(100);
  assert.equal((await p.evaluate(() => window.sinkHard)).gate, "confirmed");
  assert.ok(await p.evaluate(() => lab.inst.records.some((r) => r.callId === "sinkHard")), "records still delivered");
  await finish(p, "throwing sinks");
});

test("dispose and pagehide in the middle of a card and of a run", async () => {
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

test("the tab hidden during Hand mode disarms it; element actions never touch the page unarmed", async () => {
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
  await sleep(150);
  await trustedConfirm(p); // a person confirms the hard element card, but Hand mode is off now
  await sleep(100);
  assert.equal((await p.evaluate(() => window.keep)).gate, "needs_hand_mode");
  assert.equal((await state()).clicks, before, "nothing touched the page while hidden");
  await p.evaluate(() => { delete document.hidden; delete document.visibilityState; });
  await finish(p, "hidden tab");
});

// ---- WebMCP: the browser's own agent as a door (SPEC §7.2) ----------------------------------
// Chromium's own document.modelContext (a browser of its own, with --enable-features=WebMCP);
// elsewhere the standard-shaped fixture that mirrors it. See "the WebMCP door" in lab.js.
const MODEL_CONTEXT = readFileSync(new URL("./fixtures/model-context.js", import.meta.url), "utf8");

test("an untrusted agent through WebMCP's executeTool: no hard fire without a click, no soft fire without its token", async () => {
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
    const events = (await onPart(p, "confirm", synthetic)) + (await p.evaluate(atPageElements, synthetic.toString()));
    await sleep(50);
    assert.equal(await hardRuns(p), 0);
    assert.equal(await p.evaluate(() => window.mcpHard), null, "the browser's agent still waits");
    await trustedConfirm(p);
    for (const end = Date.now() + 5000; Date.now() < end && (await p.evaluate(() => window.mcpHard)) === null;) await sleep(25);
    assert.deepEqual(await p.evaluate(() => [window.mcpHard.gate, window.mcpHard.ok]), ["confirmed", true]);
    assert.equal(await hardRuns(p), 1);
    const s = await p.evaluate(async (events) => { lab.stats.events += events; await lab.mcpSettle(); return { ...lab.stats }; }, events);
    console.log(`hostile: webmcp door: ${s.mcpCalls} executeTool calls (${sent} sent by the agent), ${s.mcpExecutes} reached the SDK, ${s.mcpRefusedByBrowser} refused by the browser itself; ${s.mcpFreed} instances freed; soft runs ${s.softRuns}, hard runs ${s.hardRuns}`);
    assert.ok(s.mcpExecutes > 0 && s.mcpRefusedByBrowser > 0, "both the SDK's answers and the browser's own refusals were exercised");
    await finish(p, "webmcp agent");
  } finally {
    if (mcpEnv !== env) await mcpEnv.close();
  }
});
