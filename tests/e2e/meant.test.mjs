// A decision the person meant (SPEC §4.2, §6 `assurance`; issue 30), in every engine, with the
// drivers' real mouse, wheel and keyboard (trusted input): the seven findings of the audit, each
// as what a person could actually do, and the legitimate flows beside them, so that the
// protection cannot lock a person out.
//
//   1. The arm delay counts from the screen, not from the call.
//   2. A card replaced (or changed) under the pointer confirms nothing.
//   3. Typing that runs into the card confirms nothing; Tab then Enter after a quiet delay does.
//   4. The SDK's own element action is nobody's gesture: no grant, no Hand mode.
//   5. Page code may re-enter from focus moves and callbacks: no panic, no stuck call, no lost record.
//   6. A summary cannot push the app's words out of view; an honestly long one is read to its end.
//   7. Records say what stands behind each decision (`assurance`).
//
// Each check is judged by what fires (run, outcome, record), never by Confirm's `data-armed`
// alone; where a scenario depends on timing, the page's own event times (`event.timeStamp`, on
// the clock the SDK judges by) say whether the input landed where the scenario needs it, and the
// test says so instead of passing vacuously.
import { describe, test, before, after } from "node:test";
import assert from "node:assert/strict";
import {
  launch, openFixture, onPart, partCenter, clickPart, click, cardState, waitCard, waitFor, sleep, ENGINE, TEST_TIMEOUT, onlyIn, waitArmed,
} from "./harness.mjs";

/** The arm delay of these tests, and how long a "full delay" wait is (1.5×, for loaded machines). */
const ARM = 500;
const FULL = Math.round(ARM * 1.5);

let env;
before(async () => { env = await launch(); });
after(async () => { await env?.close(); });

/**
 * A page with `window.ck` (records in `window.records`, runs counted in `window.runs`,
 * outcomes in `window.outcomes[key]`), `window.hard(name, extra)`, `window.call(name, args,
 * callId)`, and `window.inputs`: every event of a person's input the page sees (captured at the
 * window, so the card's own, retargeted to its host, included), with its `timeStamp`.
 */
async function meantPage(options = {}, pageOptions = {}) {
  // A person's browser window has focus (WebKit's MiniBrowser on a bare Xvfb gets it only when
  // the driver gives it: drivers/webkit.mjs, `focusWindow`).
  const p = await openFixture(env, undefined, false, pageOptions);
  await setUpPage(p, options);
  return p;
}

/** What `meantPage` puts in a page (again after a reload). */
async function setUpPage(p, options = {}) {
  assert.equal(await waitFor(p, () => document.hasFocus() && document.visibilityState === "visible", undefined, 3000).catch(() => false), true,
    "setup: the page is visible and its window has focus");
  await p.evaluate((options) => {
    const { Coworkkit } = window.coworkkit;
    window.records = [];
    window.runs = {};
    window.outcomes = {};
    window.inputs = [];
    window.pageErrors = [];
    addEventListener("error", (e) => window.pageErrors.push(`${e.error?.name ?? "Error"}: ${e.message}`));
    addEventListener("unhandledrejection", (e) => window.pageErrors.push(`unhandled: ${e.reason?.name}: ${e.reason?.message ?? e.reason}`));
    for (const type of ["pointerdown", "pointerup", "click", "keydown", "wheel", "focusin", "focusout"]) {
      addEventListener(type, (e) => {
        window.inputs.push({
          type, t: e.timeStamp, trusted: e.isTrusted, detail: e.detail, key: e.key, repeat: e.repeat,
          card: e.target instanceof Element && e.target.getAttribute("data-coworkkit") === "card",
          id: e.target?.id ?? null,
        });
      }, true);
    }
    window.ck = new Coworkkit({ armDelayMs: 500, onActionRecord: (r) => window.records.push(r), ...options });
    window.hard = (name, extra = {}) => window.ck.defineAction({
      name,
      description: `The ${name} action.`,
      control: "hard",
      run: (args) => { window.runs[name] = (window.runs[name] ?? 0) + 1; return { done: name, args }; },
      ...extra,
    });
    let n = 0;
    window.call = (name, args = {}, callId = undefined) => {
      const key = callId ?? `${name}#${n++}`;
      window.outcomes[key] = null;
      window.ck.invoke({ name, args, callId: key }).then((o) => { window.outcomes[key] = o; });
      return key;
    };
  }, { armDelayMs: ARM, ...options });
}

const outcome = (p, key) => p.evaluate((key) => window.outcomes[key], key);
const runs = (p, name) => p.evaluate((name) => window.runs[name] ?? 0, name);
async function waitOutcome(p, key, timeout = 8000) {
  const until = Date.now() + timeout;
  for (;;) {
    const o = await outcome(p, key);
    if (o) return o;
    if (Date.now() > until) throw new Error(`no outcome for ${key} within ${timeout} ms`);
    await sleep(25);
  }
}
/** What Confirm says of itself (for the failure messages only: tests judge by what fires). */
const armedAttr = (p) => onPart(p, "confirm", function () { return this.getAttribute("data-armed"); });
/** Confirm's box in viewport coordinates. */
const confirmBox = (p) => onPart(p, "confirm", function () {
  const r = this.getBoundingClientRect();
  return { x: r.x, y: r.y, width: r.width, height: r.height, cx: r.x + r.width / 2, cy: r.y + r.height / 2 };
});
/**
 * Records, in `window.confirmEvents`, the pointerdown and click events that reach Confirm itself
 * (inside the closed root: a test instrument, installed through the engine's protocol). The card
 * reuses its dialog and buttons, so this sees every card's Confirm.
 */
function watchConfirm(p) {
  return onPart(p, "confirm", function () {
    if (window.confirmEvents) return;
    window.confirmEvents = [];
    for (const type of ["pointerdown", "click", "keydown"]) {
      this.addEventListener(type, (e) => window.confirmEvents.push({ type, t: e.timeStamp, detail: e.detail, key: e.key, trusted: e.isTrusted }), true);
    }
  });
}
/** The page's problems that are failures here: uncaught errors and error events. */
async function pageErrors(p) {
  const inPage = await p.evaluate(() => window.pageErrors);
  return [...p.problems.filter((x) => x.startsWith("pageerror")), ...inPage];
}
const ms = (x) => `${Math.round(x)} ms`;
/** `promise`, or a rejection with `message` after `limit` ms (the timer cleared either way). */
function withTimeout(promise, limit, message) {
  let timer;
  const late = new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(message)), limit); });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
const px = (x) => Math.round(x);

// ---- 1 ------------------------------------------------------------------------------------

describe("1. the arm delay counts from the screen, not from the call", () => {
  // A long delay and busy period here. Chromium delivers the click while the page is busy (its
  // press stamped at the time it was sent); Firefox and WebKit deliver it once the page is idle
  // again (WebKit 20 ms to over 2 s after the busy task ended, on a loaded machine). So the click
  // is sent late in the busy period, past the delay counted from showModal() (4.5 s > 4 s), and
  // whenever it arrives it is well inside the delay counted from the first frame (< 4 s after it).
  const ARM1 = 4000;
  const BUSY = 5000;

  /**
   * Opens a card whose page then stays busy for `BUSY` ms (`how`: an open action's synchronous
   * `run` in the same batch, or a page script right after `invoke`), and clicks Confirm's
   * position with the real mouse while it is busy, ~4.5 s after the card was opened: past the
   * arm delay counted from the call, before anything was painted.
   */
  async function busyCase(how) {
    const p = await meantPage({ armDelayMs: ARM1 });
    await p.evaluate((BUSY) => {
      window.hard("deleteProject", { confirmationSummary: (a) => `Delete ${a.projectId} and all its tasks?` });
      window.ck.defineAction({
        name: "syncIndex", description: "Rebuild the search index.", control: "open",
        run: () => { const until = performance.now() + BUSY; while (performance.now() < until) { /* a slow synchronous run */ } return true; },
      });
    }, BUSY);
    // Where Confirm will be: the same card, shown once beforehand and cancelled by the app.
    const probe = await p.evaluate(() => window.call("deleteProject", { projectId: "p0" }));
    await waitCard(p, (s) => s.open && s.summary === "Delete p0 and all its tasks?");
    const at = await confirmBox(p);
    await p.evaluate(() => window.ck.cancel(window.ck.pending()[0].id));
    assert.equal((await waitOutcome(p, probe)).gate, "cancelled");
    await waitCard(p, (s) => !s.open);
    await sleep(300);

    await p.evaluate(([how, BUSY]) => {
      window.t = {};
      setTimeout(() => {
        window.t.invoked = performance.now();
        window.key = window.call("deleteProject", { projectId: "p1" }, "busy1");
        window.t.shown = performance.now();
        if (how === "run") window.ck.invoke({ name: "syncIndex" });
        else { const until = performance.now() + BUSY; while (performance.now() < until) { /* the page's own script */ } }
        window.t.idle = performance.now();
        // The first frames after the busy task: the earliest the card could have been seen.
        // (performance.now() in the callbacks: Firefox's rAF argument can be a stale tick from
        // before the busy task.)
        requestAnimationFrame(() => { window.t.frame = performance.now(); requestAnimationFrame(() => { window.t.frame2 = performance.now(); }); });
      }, 50);
    }, [how, BUSY]);
    // ~4.5 s into the busy period: the page cannot have drawn the card yet.
    await sleep(4500);
    await p.mouse.click(at.cx, at.cy);
    await waitFor(p, () => window.t.frame2 !== undefined, undefined, 15000);
    await sleep(300);
    const seen = await p.evaluate(() => ({ t: window.t, inputs: window.inputs.filter((e) => e.trusted && e.card) }));
    const down = seen.inputs.find((e) => e.type === "pointerdown");
    const clickEvent = seen.inputs.find((e) => e.type === "click");
    // The scenario happened as described: the press reached the card's Confirm past the arm
    // delay counted from showModal(), and before the page could have painted the card and let it
    // be seen for the arm delay.
    assert.ok(down && clickEvent, `setup: the click never reached the card (inputs: ${JSON.stringify(seen.inputs)})`);
    assert.ok(seen.t.shown - seen.t.invoked < 100, `setup: the card was not shown inside invoke (${ms(seen.t.shown - seen.t.invoked)})`);
    assert.ok(down.t - seen.t.shown >= ARM1 + 100,
      `setup: the press came only ${ms(down.t - seen.t.shown)} after showModal(), inside the arm delay even as counted today`);
    assert.ok(down.t < seen.t.frame + ARM1 - 100,
      `setup: the press came ${ms(down.t - seen.t.frame)} after the first frame that could show the card (busy until +${ms(seen.t.idle - seen.t.shown)})`);
    const when = `pressed at +${ms(down.t - seen.t.shown)} after showModal(), clicked at +${ms(clickEvent.t - seen.t.shown)}; `
      + `the page was busy until +${ms(seen.t.idle - seen.t.shown)} and painted its first frame at +${ms(seen.t.frame - seen.t.shown)}`;
    assert.equal(await runs(p, "deleteProject"), 0,
      `a click made while the page was busy (${how === "run" ? "a slow synchronous run in the same batch" : "a page script after invoke"}), before the card had been on screen for the arm delay, confirmed the card: ${when}`);
    assert.equal(await outcome(p, "busy1"), null, "the call is still waiting for a person");
    assert.equal((await cardState(p)).open, true, "the card is still open");
    // The card still works for a person who has seen it.
    await sleep(ARM1 * 1.5);
    await clickPart(p, "confirm");
    const o = await waitOutcome(p, "busy1");
    assert.equal(o.gate, "confirmed", `a click ${ARM1 * 1.5} ms after the card was painted did not confirm (data-armed=${await armedAttr(p).catch(() => "?")})`);
    assert.equal(await runs(p, "deleteProject"), 1);
    assert.deepEqual(await pageErrors(p), []);
    await p.close();
  }

  test("a slow synchronous run in the same batch: a click made while the page is busy does nothing; a click after the delay confirms",
    { timeout: TEST_TIMEOUT }, () => busyCase("run"));
  test("a page script busy right after invoke: a click made while the page is busy does nothing; a click after the delay confirms",
    { timeout: TEST_TIMEOUT }, () => busyCase("script"));
});

// ---- 2 ------------------------------------------------------------------------------------

describe("2. a card replaced or changed under the pointer", () => {
  /**
   * Three hard calls queue (A "1 of 3", then B "1 of 2": the same layout, so B's Confirm is where
   * A's was); after A's full delay the person clicks twice at Confirm (`how`).
   */
  async function twoClicks(how) {
    const p = await meantPage();
    await p.evaluate(() => {
      for (const name of ["deleteA", "deleteB", "deleteC"]) window.hard(name, { confirmationSummary: () => "Delete the project and all its tasks?" });
      window.keys = ["deleteA", "deleteB", "deleteC"].map((name) => window.call(name));
    });
    await waitCard(p, (s) => s.open && s.title === "Delete a" && s.position === "1 of 3");
    await watchConfirm(p);
    await sleep(FULL);
    const a = await confirmBox(p);
    if (how === "dblclick") await p.mouse.dblclick(a.cx, a.cy);
    else await p.mouse.clickTwice(a.cx, a.cy, 100);
    await sleep(400);
    const keys = await p.evaluate(() => window.keys);
    const events = await p.evaluate(() => window.confirmEvents.filter((e) => e.trusted && e.type === "click"));
    assert.equal(events.length, 2, `setup: both clicks reached Confirm (${JSON.stringify(events)})`);
    // A double click, or two clicks in quick succession, as the page saw them.
    assert.ok(events[1].t - events[0].t < ARM - 100, `setup: the two clicks reached the page ${ms(events[1].t - events[0].t)} apart`);
    assert.equal(await runs(p, "deleteA"), 1, `the first click confirmed the first card (clicks on Confirm: ${JSON.stringify(events)})`);
    const state = await cardState(p);
    // The second click landed on the next card's Confirm (else the check below would be vacuous).
    assert.equal(state.title, "Delete b", "the next card took the first one's place");
    const b = await confirmBox(p);
    assert.ok(Math.abs(b.cx - a.cx) < 2 && Math.abs(b.cy - a.cy) < 2, `setup: B's Confirm is not where A's was (${JSON.stringify([a, b])})`);
    assert.equal(await runs(p, "deleteB"), 0,
      `a ${how === "dblclick" ? "double click" : "second click 100 ms after the first"} on Confirm confirmed the card that replaced the first one (clicks ${ms(events[1].t - events[0].t)} apart, ${events.map((e) => `detail ${e.detail}`).join(", ")})`);
    assert.equal(await outcome(p, keys[1]), null, "B still waits for a person");
    // B works for a person who has seen it.
    await sleep(FULL);
    await clickPart(p, "confirm");
    assert.equal((await waitOutcome(p, keys[1])).gate, "confirmed", "a click after B's own full delay confirms B");
    assert.equal(await runs(p, "deleteC"), 0);
    assert.deepEqual(await pageErrors(p), []);
    await p.close();
  }

  test("a double click on Confirm confirms the first card only, never the one that replaces it", { timeout: TEST_TIMEOUT }, () => twoClicks("dblclick"));
  test("two clicks 100 ms apart confirm the first card only", { timeout: TEST_TIMEOUT }, () => twoClicks("two clicks"));

  test("a press begun on the first card and released over the card that replaced it (after that card's delay) does nothing", { timeout: TEST_TIMEOUT }, async () => {
    const p = await meantPage();
    await p.evaluate(() => {
      for (const name of ["deleteA", "deleteB", "deleteC"]) window.hard(name, { confirmationSummary: () => "Delete the project and all its tasks?" });
      window.keys = ["deleteA", "deleteB", "deleteC"].map((name) => window.call(name));
      // The app takes the first card back 100 ms into the person's press (its chat message was
      // retracted, say): the next card takes its place under the pointer.
      addEventListener("pointerdown", (e) => {
        if (!e.isTrusted) return;
        window.pressedAt = e.timeStamp;
        setTimeout(() => { window.ck.cancel(window.ck.pending()[0].id); window.replacedAt = performance.now(); }, 100);
      }, { capture: true, once: true });
    });
    await waitCard(p, (s) => s.open && s.title === "Delete a" && s.position === "1 of 3");
    await watchConfirm(p);
    await sleep(FULL);
    const a = await confirmBox(p);
    await p.mouse.down(a.cx, a.cy);
    await waitCard(p, (s) => s.title === "Delete b");
    await sleep(FULL); // B has been shown for more than the arm delay
    const b = await confirmBox(p);
    assert.ok(Math.abs(b.cx - a.cx) < 2 && Math.abs(b.cy - a.cy) < 2, `setup: B's Confirm is not where A's was (${JSON.stringify([a, b])})`);
    await p.mouse.up();
    await sleep(400);
    const keys = await p.evaluate(() => window.keys);
    const seen = await p.evaluate(() => ({ pressedAt: window.pressedAt, replacedAt: window.replacedAt, events: window.confirmEvents.filter((e) => e.trusted) }));
    const clickEvent = seen.events.find((e) => e.type === "click");
    assert.equal((await outcome(p, keys[0]))?.gate, "cancelled", "setup: the app took A back");
    if (clickEvent) {
      assert.ok(clickEvent.t - seen.replacedAt >= ARM + 100, `setup: the release came only ${ms(clickEvent.t - seen.replacedAt)} after B replaced A`);
    } else {
      // WebKit makes no click of a press whose dialog was closed and shown again before the
      // release (the SDK closes and reopens it between cards today): the engine itself stops
      // this one there. Nothing may fire either way.
      console.log(`meant: ${ENGINE}: the release over the replaced card made no click on Confirm (${JSON.stringify(seen.events)})`);
    }
    assert.equal(await runs(p, "deleteB"), 0,
      `a press begun on A's Confirm (before B existed) and released over B's Confirm ${clickEvent ? ms(clickEvent.t - seen.replacedAt) : "?"} after B replaced A confirmed B`);
    assert.equal(await outcome(p, keys[1]), null, "B still waits for a person");
    await sleep(FULL);
    await clickPart(p, "confirm");
    assert.equal((await waitOutcome(p, keys[1])).gate, "confirmed", "a whole click after B's delay confirms B");
    assert.deepEqual(await pageErrors(p), []);
    await p.close();
  });

  test("a new hard call arriving (\"1 of 2\", \"Cancel all 2\") restarts the delay: a click right after does nothing; after a full delay it confirms", { timeout: TEST_TIMEOUT }, async () => {
    // A longer delay here, so that "right after the change" is well inside it in every engine.
    const LONG = 1500;
    const p = await meantPage({ armDelayMs: LONG });
    await p.evaluate(() => {
      for (const name of ["deleteA", "deleteB"]) window.hard(name, { confirmationSummary: () => "Delete the project and all its tasks?" });
      window.a = window.call("deleteA");
    });
    await waitCard(p, (s) => s.open && s.title === "Delete a" && !s.position);
    await watchConfirm(p);
    const before = await confirmBox(p);
    const cancelBefore = await partCenter(p, "cancel");
    await sleep(LONG * 1.5); // armed
    const armedBefore = await armedAttr(p);
    const changedAt = await p.evaluate(() => { window.b = window.call("deleteB"); return performance.now(); });
    const after = await confirmBox(p);
    const shown = await cardState(p);
    assert.equal(shown.position, "1 of 2", "the count row appeared");
    const cancelAll = await onPart(p, "cancel-all", function () { return this.hidden ? null : this.textContent; });
    assert.match(cancelAll ?? "", /2/, "Cancel all 2 appeared");
    await p.mouse.click(after.cx, after.cy);
    await sleep(300);
    const clicks = await p.evaluate(() => window.confirmEvents.filter((e) => e.trusted && e.type === "click"));
    assert.equal(clicks.length, 1, `setup: the click reached Confirm (${JSON.stringify(clicks)})`);
    const since = clicks[0].t - changedAt;
    assert.ok(since < LONG - 300, `setup: the click came ${ms(since)} after the change, not well inside the ${LONG} ms delay`);
    const moved = Math.abs(after.cx - before.cx) > 1 || Math.abs(after.cy - before.cy) > 1;
    assert.equal(await runs(p, "deleteA"), 0,
      `a click ${ms(since)} after a new hard call changed the card ("1 of 2", "Cancel all 2" appeared; Confirm ${moved ? `moved from (${px(before.cx)}, ${px(before.cy)}) to (${px(after.cx)}, ${px(after.cy)}); Cancel had been at (${px(cancelBefore.x)}, ${px(cancelBefore.y)})` : "did not move"}) confirmed it (data-armed before the change: ${armedBefore})`);
    assert.equal(await outcome(p, await p.evaluate(() => window.a)), null);
    await sleep(LONG * 1.5);
    await clickPart(p, "confirm");
    assert.equal((await waitOutcome(p, await p.evaluate(() => window.a))).gate, "confirmed", "after a full delay from the change, Confirm confirms");
    await waitCard(p, (s) => s.open && s.title === "Delete b");
    assert.equal(await runs(p, "deleteB"), 0);
    assert.deepEqual(await pageErrors(p), []);
    await p.close();
  });
});

// ---- 3 ------------------------------------------------------------------------------------

describe("3. typing that runs into the card", () => {
  /** A page whose field `#field` opens a hard card (the agent's call) once 3 characters are typed. */
  async function typingPage(armDelayMs = ARM) {
    const p = await meantPage({ armDelayMs });
    await p.evaluate(() => {
      window.hard("deleteProject", { confirmationSummary: () => "Delete the project and all its tasks?" });
      const field = document.querySelector("#field");
      field.addEventListener("input", () => {
        if (field.value.length === 3 && !window.key) {
          window.key = window.call("deleteProject");
          window.openedAt = performance.now();
        }
      });
    });
    return p;
  }

  test("a person typing in the page (a key every ~90 ms) while the card opens: Tab and Enter past the delay confirm nothing", { timeout: TEST_TIMEOUT }, async () => {
    // A longer delay here, so that the typing is continuous with a wide margin in every engine.
    const ARM3 = 1000;
    const p = await typingPage(ARM3);
    await click(p, "#field");
    await waitFor(p, () => document.activeElement?.id === "field");
    const text = "pleasearchivetheoldprojectsnowandthenthenewones";
    // 3 letters open the card; then letters for 1.5 × the delay; then Tab, Enter, and more.
    const after = Math.ceil((ARM3 * 1.5) / 90) + 2;
    const keys = [...text.slice(0, 3 + after), "Tab", "Enter", ..."done"];
    await p.keyboard.typeKeys(keys, 90);
    await sleep(300);
    const seen = await p.evaluate(() => ({ openedAt: window.openedAt, inputs: window.inputs.filter((e) => e.trusted && e.type === "keydown") }));
    assert.ok(seen.openedAt, "setup: the card opened while typing");
    const tab = seen.inputs.find((e) => e.key === "Tab");
    const enter = seen.inputs.find((e) => e.key === "Enter");
    assert.ok(tab && enter, `setup: Tab and Enter reached the page (${JSON.stringify(seen.inputs.map((e) => e.key))})`);
    const gaps = seen.inputs.slice(1).map((e, i) => e.t - seen.inputs[i].t);
    const maxGap = Math.max(...gaps);
    assert.ok(maxGap < ARM3 - 200, `setup: the typing paused ${ms(maxGap)} (not continuous)`);
    assert.ok(tab.t - seen.openedAt >= ARM3 + 100, `setup: Tab came only ${ms(tab.t - seen.openedAt)} after the card opened`);
    const key = await p.evaluate(() => window.key);
    const o = await outcome(p, key);
    assert.equal(await runs(p, "deleteProject"), 0,
      `typing carried Tab (+${ms(tab.t - seen.openedAt)}) and Enter (+${ms(enter.t - seen.openedAt)}) into a card that opened under it and confirmed it (keys every ≤ ${ms(maxGap)})`);
    assert.ok(o === null || o.gate !== "confirmed", `the call was ${o?.gate}`);
    assert.deepEqual(await pageErrors(p), []);
    await p.close();
  });

  test("the keyboard path still works: the card opens over a focused field, a full delay with no input, then Tab (Cancel → Confirm) and Enter confirm", { timeout: TEST_TIMEOUT }, async () => {
    const p = await typingPage();
    await click(p, "#field");
    await p.keyboard.typeKeys([..."arc"], 90);
    const state = await waitCard(p, (s) => s.open);
    assert.equal(state.focused, "cancel", "focus starts on Cancel");
    await waitArmed(p); // a person waits until Confirm looks ready
    await p.keyboard.press("Tab");
    await waitCard(p, (s) => s.focused === "confirm");
    await p.keyboard.press("Enter");
    const key = await p.evaluate(() => window.key);
    assert.equal((await waitOutcome(p, key)).gate, "confirmed", "Tab then Enter after a quiet full delay confirms");
    assert.equal(await runs(p, "deleteProject"), 1);
    assert.deepEqual(await pageErrors(p), []);
    await p.close();
  });

  test("the keyboard path with Space: a full delay, Tab, Space confirms", { timeout: TEST_TIMEOUT }, async () => {
    const p = await meantPage();
    await p.evaluate(() => { window.hard("deleteProject"); window.key = window.call("deleteProject"); });
    await waitCard(p, (s) => s.open && s.focused === "cancel");
    await waitArmed(p); // a person waits until Confirm looks ready
    await p.keyboard.press("Tab");
    await waitCard(p, (s) => s.focused === "confirm");
    await p.keyboard.press("Space");
    assert.equal((await waitOutcome(p, await p.evaluate(() => window.key))).gate, "confirmed");
    await p.close();
  });
});

// ---- 4 ------------------------------------------------------------------------------------

describe("4. the SDK's own element action is nobody's gesture", () => {
  /**
   * The app's controls whose handlers try `ck.grant` and `ck.armHandMode` (each attempt logged in
   * `window.attempts` with the event, whether the browser marked it trusted and whether the
   * person's activation was still live); the agent's element actions on them; a page button
   * `#arm` whose trusted click arms Hand mode and, 100 ms later, lets the agent run `actions`
   * one after the other (the agent's turn, inside the activation the person's click left).
   */
  async function elementPage() {
    const p = await meantPage();
    await p.evaluate(() => {
      const ck = window.ck;
      ck.defineAction({ name: "archive", description: "Archive a thread.", control: "soft", run: () => true });
      window.attempts = [];
      const attempt = (where) => (e) => {
        if (e.type === "submit") e.preventDefault();
        const entry = { where, type: e.type, trusted: e.isTrusted, active: navigator.userActivation?.isActive ?? null };
        try { entry.grant = ck.grant("archive", { ttlMs: 60_000 }).id; } catch (err) { entry.grant = err.code ?? `${err.name}: ${err.message}`; }
        try { ck.armHandMode(); entry.arm = "armed"; } catch (err) { entry.arm = err.code ?? `${err.name}: ${err.message}`; }
        window.attempts.push(entry);
      };
      const html = `
        <fieldset id="controls">
          <input type="checkbox" id="agree"> <span>Agree</span>
          <form id="f"><input name="q" value="x"><button id="send" type="submit">Send</button></form>
          <input type="checkbox" id="agree2"><label id="agreeLabel" for="agree2">Agree (label)</label>
          <input id="note" value=""><select id="pick"><option value="a">A</option><option value="b">B</option></select>
        </fieldset>`;
      document.body.insertAdjacentHTML("beforeend", html);
      const $ = (s) => document.querySelector(s);
      for (const type of ["change", "input", "click"]) $("#agree").addEventListener(type, attempt(`checkbox ${type}`));
      $("#f").addEventListener("submit", attempt("form submit"));
      $("#send").addEventListener("click", attempt("submit button click"));
      $("#agreeLabel").addEventListener("click", attempt("label click"));
      for (const type of ["change", "input", "click"]) $("#agree2").addEventListener(type, attempt(`label's checkbox ${type}`));
      for (const type of ["change", "input"]) $("#note").addEventListener(type, attempt(`fill ${type}`));
      for (const type of ["change", "input"]) $("#pick").addEventListener(type, attempt(`select ${type}`));
      ck.defineAction({ name: "tickAgree", description: "Tick Agree.", element: "#agree", operation: "click" });
      ck.defineAction({ name: "pressSend", description: "Send the form.", element: "#send", operation: "click" });
      ck.defineAction({ name: "clickLabel", description: "Click the label.", element: "#agreeLabel", operation: "click" });
      ck.defineAction({ name: "fillNote", description: "Fill the note.", element: "#note", operation: "fill" });
      ck.defineAction({ name: "pickB", description: "Pick B.", element: "#pick", operation: "select" });
      const arm = document.createElement("button");
      arm.id = "arm";
      arm.textContent = "Let the agent help";
      arm.addEventListener("click", () => {
        ck.armHandMode();
        setTimeout(async () => {
          const gates = {};
          for (const [name, args] of window.agentCalls) gates[name] = (await ck.invoke({ name, args })).gate;
          window.agentTurn = { gates, grants: ck.grants().length };
        }, 100);
      });
      document.body.prepend(arm);
    });
    return p;
  }

  async function agentTurn(p, calls) {
    await p.evaluate((calls) => { window.agentCalls = calls; window.agentTurn = null; window.attempts = []; }, calls);
    await click(p, "#arm");
    const turn = await waitFor(p, () => window.agentTurn);
    const attempts = await p.evaluate(() => window.attempts);
    assert.equal(await p.evaluate(() => window.ck.handMode), true, "Hand mode is armed by the person's click");
    for (const [name, gate] of Object.entries(turn.gates)) assert.equal(gate, "fired", `setup: the element action ${name} ran (${gate})`);
    return { turn, attempts };
  }

  /** Every handler that ran: no grant, no Hand mode (each named, with the browser's isTrusted). */
  function judge(attempts, turn, wants) {
    for (const where of wants) assert.ok(attempts.some((a) => a.where === where), `setup: the app's ${where} handler never ran (${JSON.stringify(attempts.map((a) => a.where))})`);
    assert.ok(attempts.some((a) => a.active === true), `setup: no handler ran inside the person's activation (${JSON.stringify(attempts)})`);
    const granted = attempts.filter((a) => a.grant !== "needs_user_activation");
    assert.deepEqual(granted.map((a) => `${a.where} (isTrusted ${a.trusted}): grant → ${a.grant}`), [],
      "the app's handlers, run for the SDK's own element action, made a grant (or failed otherwise than needs_user_activation)");
    assert.equal(turn.grants, 0, "ck.grants() stays empty");
    const armed = attempts.filter((a) => a.arm !== "needs_user_activation");
    assert.deepEqual(armed.map((a) => `${a.where} (isTrusted ${a.trusted}): armHandMode → ${a.arm}`), [],
      "armHandMode() from the app's handlers, run for the SDK's own element action, did not throw needs_user_activation");
  }

  test("a checkbox clicked by the agent: its change and input handlers make no grant and cannot arm Hand mode", { timeout: TEST_TIMEOUT }, async () => {
    const p = await elementPage();
    const { turn, attempts } = await agentTurn(p, [["tickAgree", {}]]);
    assert.equal(await p.evaluate(() => document.querySelector("#agree").checked), true, "setup: the checkbox was ticked");
    judge(attempts, turn, ["checkbox change", "checkbox input"]);
    assert.deepEqual(await p.evaluate(() => window.ck.grants()), []);
    await p.close();
  });

  test("a form's submit button clicked by the agent: its submit handler makes no grant", { timeout: TEST_TIMEOUT }, async () => {
    const p = await elementPage();
    const { turn, attempts } = await agentTurn(p, [["pressSend", {}]]);
    judge(attempts, turn, ["form submit"]);
    await p.close();
  });

  test("a label clicked by the agent: the click on its checkbox, and change and input, make no grant", { timeout: TEST_TIMEOUT }, async () => {
    const p = await elementPage();
    const { turn, attempts } = await agentTurn(p, [["clickLabel", {}]]);
    assert.equal(await p.evaluate(() => document.querySelector("#agree2").checked), true, "setup: the label ticked its checkbox");
    judge(attempts, turn, ["label click", "label's checkbox change", "label's checkbox input"]);
    await p.close();
  });

  test("fill and select by the agent: the input and change handlers make no grant", { timeout: TEST_TIMEOUT }, async () => {
    const p = await elementPage();
    const { turn, attempts } = await agentTurn(p, [["fillNote", { value: "hello" }], ["pickB", { value: "b" }]]);
    judge(attempts, turn, ["fill input", "fill change", "select input", "select change"]);
    await p.close();
  });

  test("a person's own click on the same checkbox still grants (the rule stops the agent, not the person)", { timeout: TEST_TIMEOUT }, async () => {
    const p = await elementPage();
    await p.evaluate(() => { window.attempts = []; });
    await click(p, "#agree");
    const attempts = await waitFor(p, () => (window.attempts.length >= 2 ? window.attempts : null));
    const change = attempts.find((a) => a.where === "checkbox change");
    assert.ok(change, JSON.stringify(attempts));
    assert.match(String(change.grant), /^ckg_/, `a person's click on the checkbox made no grant: ${JSON.stringify(attempts)}`);
    await p.close();
  });
});

// ---- 5 ------------------------------------------------------------------------------------

describe("5. page code may re-enter", () => {
  const MOVES = ["invokeHard", "invokeOpen", "cancel", "cancelAll", "dispose", "grant"];

  /**
   * In the page: a fresh instance per run, whose `hook` (a listener on the page's focused field,
   * or one of the SDK's callbacks) makes `move` once. Every call made is kept by its callId; every
   * throw that is not an `Error` with a `code` is a failure.
   */
  function installReentry() {
    window.reentry = (hook, move) => {
      const { Coworkkit } = window.coworkkit;
      const R = { hook, move, errors: [], fired: [], calls: {}, records: [], refused: [], disposed: false };
      window.R = R;
      let ck;
      let budget = 1;
      let seq = 0;
      const bad = (where, e) => R.errors.push(`${where}: ${e?.name ?? typeof e}: ${e?.message ?? e}`);
      const invoke = (call) => {
        const callId = `${hook}_${move}_${seq++}`;
        const entry = { name: call.name, gate: null };
        R.calls[callId] = entry;
        try {
          ck.invoke({ ...call, callId }).then((o) => { entry.gate = o.gate; }, (e) => { entry.gate = "rejected-promise"; bad(`invoke ${call.name}`, e); });
        } catch (e) { entry.gate = "threw"; bad(`invoke ${call.name}`, e); }
        return callId;
      };
      R.invoke = invoke;
      const doMove = (where) => {
        R.fired.push(where);
        if (budget <= 0 || window.reentryOff) return;
        budget -= 1;
        try {
          if (move === "invokeHard") invoke({ name: "dropTable", args: { t: `from ${where}` } });
          else if (move === "invokeOpen") invoke({ name: "readDoc", args: { from: where } });
          else if (move === "cancel") { const q = ck.pending()[0]; if (q) ck.cancel(q.id); }
          else if (move === "cancelAll") ck.cancelAll();
          else if (move === "dispose") { R.disposed = true; ck.dispose(); }
          else if (move === "grant") ck.grant("archive", { ttlMs: 60_000 });
        } catch (e) {
          if (e instanceof Error && typeof e.code === "string") R.refused.push(`${where}: ${e.code}`);
          else bad(`${move} from ${where}`, e);
        }
      };
      const field = document.querySelector("#field");
      window.reentryListeners?.forEach(([type, f]) => field.removeEventListener(type, f));
      window.reentryListeners = [];
      if (["blur", "focusout", "focus", "focusin"].includes(hook)) {
        const f = () => doMove(hook);
        field.addEventListener(hook, f);
        window.reentryListeners.push([hook, f]);
      }
      ck = new Coworkkit({
        armDelayMs: 300,
        approver: () => { if (hook === "approver") doMove("approver"); return { id: "ann", role: "admin" }; },
        onActionRecord: (r) => { R.records.push(r.callId); if (hook === "onActionRecord") doMove("onActionRecord"); },
      });
      R.ck = ck;
      for (const kind of ["proposal", "resolved", "record"]) ck.on(kind, () => { if (hook === kind) doMove(kind); });
      ck.defineAction({
        name: "dropTable", description: "Drop a table.", control: "hard", run: () => true,
        confirmationSummary: (a) => { if (hook === "confirmationSummary") doMove("confirmationSummary"); return `Drop ${a.t}?`; },
      });
      ck.defineAction({ name: "readDoc", description: "Read a document.", control: "open", run: () => { if (hook === "run") doMove("run"); return "text"; } });
      ck.defineAction({ name: "archive", description: "Archive a thread.", control: "soft", run: () => true });
      field.focus();
      R.focusedBefore = document.activeElement === field;
      invoke({ name: "dropTable", args: { t: "first" } });
      invoke({ name: "readDoc", args: { from: "start" } });
      return { focused: R.focusedBefore };
    };
    /** After the person's part: the instance still answers, everything settles, one record per settled call. */
    window.reentryCheck = async () => {
      const R = window.R;
      const race = (promise, ms, what) => Promise.race([promise, new Promise((r) => setTimeout(() => r(`${what}: no answer within ${ms} ms`), ms))]);
      const report = { still: null, fresh: null };
      window.reentryOff = true;
      if (!R.disposed) {
        try {
          const o = await race(R.ck.invoke({ name: "readDoc", args: { from: "check" }, callId: "check" }), 2000, "a normal call");
          report.still = typeof o === "string" ? o : o.gate;
          R.calls.check = { name: "readDoc", gate: typeof o === "string" ? null : o.gate };
        } catch (e) { report.still = `${e.name}: ${e.message}`; }
        try { R.ck.cancelAll(); R.ck.dispose(); } catch (e) { R.errors.push(`cleanup: ${e.name}: ${e.message}`); }
      }
      // A fresh instance in the same page: a panic would have left the module unusable.
      try {
        const { Coworkkit } = window.coworkkit;
        const fresh = new Coworkkit();
        fresh.defineAction({ name: "ping", description: "Ping.", run: () => "pong" });
        const o = await race(fresh.invoke({ name: "ping" }), 2000, "a fresh instance's call");
        report.fresh = typeof o === "string" ? o : o.gate;
        fresh.dispose();
      } catch (e) { report.fresh = `${e.name}: ${e.message}`; }
      const until = performance.now() + 2000;
      while (performance.now() < until && Object.values(R.calls).some((c) => c.gate === null)) await new Promise((r) => setTimeout(r, 20));
      await new Promise((r) => setTimeout(r, 50));
      const stuck = Object.entries(R.calls).filter(([, c]) => c.gate === null).map(([id, c]) => `${id} (${c.name})`);
      const perCall = Object.keys(R.calls).filter((id) => R.calls[id].gate !== null && R.calls[id].gate !== "threw")
        .map((id) => [id, R.records.filter((r) => r === id).length]).filter(([, n]) => n !== 1).map(([id, n]) => `${id}: ${n} records`);
      window.reentryOff = false;
      return { ...report, errors: R.errors, fired: R.fired, refused: R.refused, stuck, perCall, disposed: R.disposed, calls: Object.keys(R.calls).length };
    };
  }

  /** One run: the instance and its hook, the card opened, the person's Cancel, the checks. */
  async function oneRun(p, hook, move) {
    p.problems.length = 0; // this run's own (an earlier run's are in its failure already)
    const setup = await p.evaluate(([hook, move]) => window.reentry(hook, move), [hook, move]);
    assert.equal(setup.focused, true, "setup: the page's field had focus before the card opened");
    await sleep(150);
    // The person cancels whatever card is showing (the card closing returns focus).
    for (let i = 0; i < 3; i++) {
      const at = await partCenter(p, "cancel");
      if (!at || !(await cardState(p)).open) break;
      await p.mouse.click(at.x, at.y);
      await sleep(150);
    }
    const r = await p.evaluate(() => window.reentryCheck());
    return { ...r, pageErrors: await pageErrors(p) };
  }


  /** Runs every (hook, move) on one page, reloading it after a run that broke the module. */
  async function reentrySuite(hooks) {
    const p = await meantPage();
    await p.evaluate(installReentry);
    // After a run that broke the module: the same page loaded again (WebKit makes a new page a
    // new WebDriver session, slow and now and then where its driver hangs).
    const reload = async () => {
      await p.goto(env.url + "fixtures/blank.html");
      await waitFor(p, () => window.ready === true);
      await setUpPage(p);
      await p.evaluate(installReentry);
    };
    const failures = [];
    const results = {};
    try {
      for (const hook of hooks) {
        for (const move of MOVES) {
          const label = `${hook} → ${move}`;
          const started = Date.now();
          let r;
          try {
            r = await withTimeout(oneRun(p, hook, move), 45_000, "the run did not finish within 45 s");
          } catch (e) {
            // A driver that no longer answers a trivial command has stalled (WebKit's, now and
            // then): left to the test's own timeout, which scripts/test's WebKit rerun knows. A
            // driver that answers while the run did not finish is the page's failure.
            if (/within 45 s/.test(e.message) && !(await withTimeout(p.evaluate(() => 1), 10_000, "stalled").catch(() => false))) {
              console.log(`meant: re-entry (${ENGINE}): ${label}: the driver stopped answering; waiting for the test's timeout`);
              await new Promise(() => {});
            }
            r = { errors: [`the test's own call into the page failed: ${e.message.split("\n")[0]}`], fired: [hook], stuck: [], perCall: [], still: null, fresh: null };
          }
          if (Date.now() - started > 10_000) console.log(`meant: re-entry (${ENGINE}): ${label} took ${Date.now() - started} ms`);
          const problems = [...r.errors, ...(r.pageErrors ?? [])];
          if (!r.fired.includes(hook)) problems.push(`setup: the ${hook} hook never ran`);
          if (!r.disposed && r.still !== "fired") problems.push(`the instance no longer answers a normal call (${r.still})`);
          if (r.fresh !== "fired") problems.push(`a fresh instance in the page no longer answers (${r.fresh}): the module is dead`);
          if (r.stuck.length) problems.push(`calls that never settled: ${r.stuck.join(", ")}`);
          if (r.perCall.length) problems.push(`records per settled call: ${r.perCall.join(", ")}`);
          results[label] = problems.length ? "FAIL" : `ok (${r.calls} calls${r.refused?.length ? `, refused ${r.refused.join(" ")}` : ""})`;
          if (problems.length) {
            failures.push(`${label}: ${problems.join("; ")}`);
            await reload();
          }
        }
      }
    } finally {
      await p.close();
    }
    console.log(`meant: re-entry (${ENGINE}): ${JSON.stringify(results)}`);
    assert.deepEqual(failures, [], `re-entry from page code broke the instance in ${failures.length} of ${hooks.length * MOVES.length} runs`);
  }

  test("listeners on the page's focused field (blur, focusout as the card opens; focus, focusin as it closes) calling invoke, cancel, cancelAll, dispose, grant",
    { timeout: 300_000 }, () => reentrySuite(["blur", "focusout", "focus", "focusin"]));
  test("callbacks (confirmationSummary, approver, onActionRecord, proposal/resolved/record listeners, run) calling invoke, cancel, cancelAll, dispose, grant",
    { timeout: 300_000 }, () => reentrySuite(["confirmationSummary", "approver", "onActionRecord", "proposal", "resolved", "record", "run"]));
});

// ---- 6 ------------------------------------------------------------------------------------

describe("6. a summary pushed out of view", () => {
  /** The summary box and where the words `words` are drawn in it (read inside the closed root). */
  const summaryLayout = (p, words) => onPart(p, "summary", function (words) {
    const box = this.getBoundingClientRect();
    const text = this.textContent;
    const walker = document.createTreeWalker(this, NodeFilter.SHOW_TEXT);
    let found = null;
    for (let node = walker.nextNode(); node && !found; node = walker.nextNode()) {
      const i = node.data.indexOf(words);
      if (i >= 0) {
        const range = document.createRange();
        range.setStart(node, i);
        range.setEnd(node, i + words.length);
        const r = range.getBoundingClientRect();
        found = { top: r.top, bottom: r.bottom, left: r.left, right: r.right };
      }
    }
    return {
      text, box: { top: box.top, bottom: box.bottom, left: box.left, right: box.right },
      scrollTop: this.scrollTop, scrollHeight: this.scrollHeight, clientHeight: this.clientHeight, words: found,
    };
  }, words);

  test("args full of blank lines and spaces: the summary collapses them, and the app's own words are in view without scrolling", { timeout: TEST_TIMEOUT }, async () => {
    const p = await meantPage();
    await p.evaluate(() => {
      window.hard("deleteProject", { confirmationSummary: (a) => `Delete ${a.projectId} and all its tasks?` });
      window.k1 = window.call("deleteProject", { projectId: "p1" + "\n".repeat(200) + "x" });
    });
    await waitCard(p, (s) => s.open);
    const words = "and all its tasks?";
    const s = await summaryLayout(p, words);
    const longest = Math.max(0, ...(s.text.match(/\n+/g) ?? []).map((m) => m.length));
    assert.ok(longest <= 2, `the summary shows a run of ${longest} line breaks from the agent's args (at most 2 may remain)`);
    assert.ok(s.text.startsWith("Delete p1") && s.text.endsWith(`x ${words}`), `the summary keeps its words: ${JSON.stringify(s.text)}`);
    assert.ok(s.scrollHeight <= s.clientHeight + 1, `the summary box overflows (${s.scrollHeight} px of text in ${s.clientHeight} px)`);
    assert.ok(s.words, "the app's words are drawn");
    assert.ok(s.words.top >= s.box.top - 1 && s.words.bottom <= s.box.bottom + 1,
      `"${words}" is drawn at ${Math.round(s.words.top)}–${Math.round(s.words.bottom)} px, outside the summary box (${Math.round(s.box.top)}–${Math.round(s.box.bottom)} px)`);
    // Spaces and tabs: one space.
    await p.evaluate(() => { window.ck.cancelAll(); window.k2 = window.call("deleteProject", { projectId: "p2" + " \t".repeat(150) + "y" }); });
    await waitCard(p, (st) => st.open && st.summary?.startsWith("Delete p2"));
    const t = await summaryLayout(p, words);
    assert.ok(!/[ \t]{2,}/.test(t.text), `the summary shows a run of ${Math.max(...t.text.match(/[ \t]+/g).map((m) => m.length))} spaces and tabs from the agent's args`);
    assert.equal(t.text, `Delete p2 y ${words}`);
    assert.deepEqual(await pageErrors(p), []);
    await p.close();
  });

  /** 32 short lines, 479 characters (under the 500 cap): honestly long, in a viewport where 40vh holds a few of them. */
  const LONG_SUMMARY = Array.from({ length: 32 }, (_, i) => `Task ${String(i + 1).padStart(2, "0")}: purge`).join("\n");

  async function longCard() {
    const p = await meantPage({}, { viewport: { width: 800, height: 600 } });
    await p.evaluate((summary) => {
      window.hard("purgeTasks", { confirmationSummary: () => summary });
      window.key = window.call("purgeTasks");
    }, LONG_SUMMARY);
    await waitCard(p, (s) => s.open);
    await watchConfirm(p);
    const s = await summaryLayout(p, "Task 32: purge");
    assert.equal(s.text, LONG_SUMMARY, "setup: the whole summary is on the card");
    assert.ok(s.scrollHeight > s.clientHeight * 2, `setup: the summary does not overflow its box (${s.scrollHeight} px in ${s.clientHeight} px)`);
    assert.ok(s.words.top > s.box.bottom, "setup: its last line is out of view");
    assert.ok(await partCenter(p, "confirm"), "setup: Confirm is in view");
    return p;
  }

  test("an honestly long summary: Confirm does nothing until the summary is wheeled to its end, then fires after a further delay", { timeout: TEST_TIMEOUT }, async () => {
    const p = await longCard();
    await sleep(FULL * 2);
    await clickPart(p, "confirm");
    await sleep(300);
    const clicks = await p.evaluate(() => window.confirmEvents.filter((e) => e.trusted && e.type === "click").length);
    assert.equal(clicks, 1, "setup: the click reached Confirm");
    assert.equal(await runs(p, "purgeTasks"), 0,
      `a click on Confirm ${FULL * 2} ms after the card opened confirmed while its summary's end had never been scrolled into view`);
    // The person reads it: the real mouse wheel over the summary, to its end.
    const box = await partCenter(p, "summary");
    let s;
    for (let i = 0; i < 20; i++) {
      await p.mouse.wheel(box.x, box.y, 120);
      await sleep(100);
      s = await summaryLayout(p, "Task 32: purge");
      if (s.scrollTop + s.clientHeight >= s.scrollHeight - 1) break;
    }
    assert.ok(s.scrollTop + s.clientHeight >= s.scrollHeight - 1, `the wheel did not scroll the summary to its end (${JSON.stringify(s)})`);
    await sleep(FULL);
    await clickPart(p, "confirm");
    assert.equal((await waitOutcome(p, await p.evaluate(() => window.key))).gate, "confirmed",
      `read to its end and a full delay later, Confirm did not confirm (data-armed=${await armedAttr(p).catch(() => "?")})`);
    assert.equal(await runs(p, "purgeTasks"), 1);
    assert.deepEqual(await pageErrors(p), []);
    await p.close();
  });

  test("an honestly long summary by keyboard only: Tab reaches the summary box, End scrolls it, then Tab to Confirm and Enter confirm", { timeout: TEST_TIMEOUT }, async () => {
    const p = await longCard();
    const order = [];
    let focused = (await cardState(p)).focused;
    for (let i = 0; i < 8 && focused !== "summary"; i++) {
      await p.keyboard.press("Tab");
      focused = (await cardState(p)).focused;
      order.push(focused);
    }
    assert.equal(focused, "summary", `Tab never reached the summary box (focus went ${order.join(" → ")}): a keyboard user cannot read it to its end`);
    await p.keyboard.press("End");
    // WebKit animates a keyboard scroll (~200 ms): wait for it to end.
    let s;
    for (const until = Date.now() + 3000; Date.now() < until; await sleep(50)) {
      s = await summaryLayout(p, "Task 32: purge");
      if (s.scrollTop + s.clientHeight >= s.scrollHeight - 1) break;
    }
    assert.ok(s.scrollTop + s.clientHeight >= s.scrollHeight - 1, `End did not scroll the summary to its end (${s.scrollTop}+${s.clientHeight} of ${s.scrollHeight})`);
    await sleep(FULL);
    for (let i = 0; i < 8 && focused !== "confirm"; i++) {
      await p.keyboard.press("Tab");
      focused = (await cardState(p)).focused;
    }
    assert.equal(focused, "confirm");
    await p.keyboard.press("Enter");
    assert.equal((await waitOutcome(p, await p.evaluate(() => window.key))).gate, "confirmed", "the keyboard-only flow confirms");
    await p.close();
  });
});

// ---- 7 ------------------------------------------------------------------------------------

describe("7. records say what stands behind each decision (assurance)", () => {
  test("open → none; soft with its token → agent; soft by a grant → grant; hard by a trusted click → input; cancelled, declined, timeout, rejected → none", { timeout: TEST_TIMEOUT }, async () => {
    const p = await meantPage();
    await p.evaluate(() => {
      const ck = window.ck;
      window.hard("dropTable");
      ck.defineAction({ name: "readNote", description: "Read a note.", control: "open", run: () => "note" });
      ck.defineAction({ name: "archive", description: "Archive a thread.", control: "soft", run: () => true });
      const allow = document.createElement("button");
      allow.id = "allow";
      allow.textContent = "Allow archiving";
      allow.addEventListener("click", () => { try { window.granted = ck.grant("archive", { maxUses: 1, match: { box: "inbox" } }).id; } catch (e) { window.granted = e.code; } });
      document.body.prepend(allow);
    });
    const byCall = async () => Object.fromEntries((await p.evaluate(() => window.records)).map((r) => [r.callId, r]));
    // open
    await p.evaluate(() => window.ck.invoke({ name: "readNote", callId: "open1" }));
    // soft, confirmed with its own token (the agent's word)
    await p.evaluate(async () => {
      const first = await window.ck.invoke({ name: "archive", args: { id: 1 }, callId: "soft1" });
      await window.ck.invoke({ name: "archive", args: { id: 1 }, callId: "soft1b", confirmToken: first.confirmToken });
      const second = await window.ck.invoke({ name: "archive", args: { id: 2 }, callId: "soft2" });
      await window.ck.invoke({ name: "archive", args: { id: 2 }, confirmToken: second.confirmToken, decline: true });
    });
    // soft, by a grant a person made with a trusted click
    await click(p, "#allow");
    assert.match(String(await waitFor(p, () => window.granted)), /^ckg_/, "setup: the grant was made");
    const granted = await p.evaluate(() => window.ck.invoke({ name: "archive", args: { box: "inbox" }, callId: "grant1" }));
    assert.equal(granted.gate, "fired", "setup: the grant fired the call");
    // hard, by a trusted click; hard, cancelled by a trusted click
    await p.evaluate(() => { window.call("dropTable", { t: 1 }, "hard1"); window.call("dropTable", { t: 2 }, "hard2"); });
    await waitCard(p, (s) => s.open && s.position === "1 of 2");
    await sleep(FULL);
    await clickPart(p, "confirm");
    assert.equal((await waitOutcome(p, "hard1")).gate, "confirmed");
    await waitCard(p, (s) => s.open && !s.position);
    await clickPart(p, "cancel");
    assert.equal((await waitOutcome(p, "hard2")).gate, "cancelled");
    // rejected on arrival
    await p.evaluate(() => window.ck.invoke({ name: "noSuchAction", callId: "rej1" }));
    // timeout (a card and a soft token that expire)
    await p.evaluate(async () => {
      const { Coworkkit } = window.coworkkit;
      const short = new Coworkkit({ confirmTimeoutMs: 600, onActionRecord: (r) => window.records.push(r) });
      short.defineAction({ name: "wipeDisk", description: "Wipe.", control: "hard", run: () => true });
      short.defineAction({ name: "archive", description: "Archive.", control: "soft", run: () => true });
      const [hard] = await Promise.all([short.invoke({ name: "wipeDisk", callId: "time1" }), short.invoke({ name: "archive", args: { id: 9 }, callId: "time2" })]);
      await new Promise((r) => setTimeout(r, 1000));
      short.dispose();
      return hard.gate;
    });
    const records = await byCall();
    const expect = {
      open1: ["fired", "none"], soft1: ["confirmed", "agent"], soft2: ["cancelled", "none"], grant1: ["fired", "grant"],
      hard1: ["confirmed", "input"], hard2: ["cancelled", "none"], rej1: ["rejected", "none"], time1: ["timeout", "none"], time2: ["timeout", "none"],
    };
    const got = Object.fromEntries(Object.keys(expect).map((id) => [id, records[id] ? [records[id].gate, records[id].assurance] : "no record"]));
    assert.deepEqual(got, expect, "each record's gate and assurance ([gate, assurance] per callId)");
    assert.equal(records.grant1.grant, await p.evaluate(() => window.granted), "the grant's record names it");
    assert.deepEqual(await pageErrors(p), []);
    await p.close();
  });

  describe("passkey cards", () => {
    const only = () => onlyIn(["chromium", "firefox"], "its driver has no virtual authenticator (see passkey.test.mjs)");
    let origin;
    before(() => { origin = env.url.replace("127.0.0.1", "localhost").replace(/\/$/, ""); });

    /** A localhost page with a passkey enrolled on a virtual authenticator and two passkey actions. */
    async function passkeyPage() {
      const { CredentialStore, registrationOptions, verifyRegistration } = await import("./passkeys.mjs");
      const p = await env.browser.newPage();
      await p.goto(origin + "/fixtures/blank.html");
      await waitFor(p, () => window.ready === true);
      await p.addVirtualAuthenticator();
      const store = new CredentialStore();
      const options = await registrationOptions({ rpID: "localhost", userName: "ann", credentialStore: store });
      const created = await p.evaluate(async (o) => (await navigator.credentials.create({ publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(o) })).toJSON(), options);
      const id = (await verifyRegistration(created, { expectedChallenge: options.challenge, expectedOrigin: origin, expectedRPID: "localhost", credentialStore: store, user: "ann" })).credential.id;
      await p.evaluate(([id, ARM]) => {
        const { Coworkkit } = window.coworkkit;
        window.records = [];
        window.fires = [];
        window.outcomes = {};
        window.ck = new Coworkkit({
          armDelayMs: ARM, approver: () => ({ id: "ann", role: "admin" }),
          onActionRecord: (r) => window.records.push(r), passkey: { credentials: () => [id], timeoutMs: 5000 },
        });
        for (const name of ["deleteProject", "transferFunds"]) {
          window.ck.defineAction({
            name, description: "irreversible", control: "hard", verify: "passkey",
            confirmationSummary: (a) => `${name} ${JSON.stringify(a)}?`,
            run: (args, ctx) => { window.fires.push({ name, args, callId: ctx.callId }); return true; },
          });
        }
        window.call = (name, args, callId) => { window.outcomes[callId] = null; window.ck.invoke({ name, args, callId }).then((o) => { window.outcomes[callId] = o; }); };
      }, [id, ARM]);
      return { p, id };
    }

    test("a passkey card confirmed by a trusted click and a verified assertion → assurance \"passkey\"", only(), async () => {
      const { p, id } = await passkeyPage();
      try {
        await p.evaluate(() => window.call("deleteProject", { projectId: "p1" }, "pk1"));
        await waitCard(p, (s) => s.open);
        await sleep(FULL);
        await clickPart(p, "confirm");
        assert.equal((await waitOutcome(p, "pk1", 15000)).gate, "confirmed");
        const [record] = await p.evaluate(() => window.records);
        assert.deepEqual([record.callId, record.gate, record.verification?.method, record.verification?.credentialId], ["pk1", "confirmed", "passkey", id]);
        assert.equal(record.assurance, "passkey", `the record of a passkey-confirmed call says assurance ${JSON.stringify(record.assurance)}`);
      } finally { await p.close(); }
    });

    test("an input-driving agent swaps the card under the person's finger: the swapped call fires, and its record honestly names the call the passkey signed (\"passkey\", not the card the person read)", only(), async () => {
      const { p } = await passkeyPage();
      try {
        // The person is reading the app's card for p1.
        await p.evaluate(() => window.call("deleteProject", { projectId: "p1" }, "person1"));
        await waitCard(p, (s) => s.open && s.summary === 'deleteProject {"projectId":"p1"}?');
        // The agent drives the input: cancels that card with a trusted click, puts its own call there.
        await clickPart(p, "cancel");
        assert.equal((await waitOutcome(p, "person1")).gate, "cancelled");
        await p.evaluate(() => window.call("transferFunds", { to: "agent", amount: 1000 }, "agent1"));
        await waitCard(p, (s) => s.open && s.summary?.startsWith("transferFunds"));
        // The person clicks Confirm (believing it is their card) and verifies with their passkey.
        await sleep(FULL);
        await clickPart(p, "confirm");
        assert.equal((await waitOutcome(p, "agent1", 15000)).gate, "confirmed", "the documented limit: a swapped passkey card fires");
        const records = Object.fromEntries((await p.evaluate(() => window.records)).map((r) => [r.callId, r]));
        assert.deepEqual([records.person1.gate, records.person1.assurance], ["cancelled", "none"], "the person's own card: cancelled, nothing stands behind it");
        const statement = JSON.parse(records.agent1.verification?.receipt?.statement ?? "{}");
        assert.deepEqual([statement.callId, statement.action, statement.args], ["agent1", "transferFunds", { amount: 1000, to: "agent" }],
          "the receipt's statement is of the call that fired (what the passkey signed), not of the card the person read");
        assert.equal(records.agent1.assurance, "passkey", `the swapped call's record says assurance ${JSON.stringify(records.agent1.assurance)}`);
        assert.deepEqual(await p.evaluate(() => window.fires.map((f) => f.callId)), ["agent1"]);
      } finally { await p.close(); }
    });
  });
});
