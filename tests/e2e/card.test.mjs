// The hard card against real input (SPEC §4, §8), in every engine: the driver's mouse and keyboard
// are trusted, `element.click()` and `dispatchEvent` from inside the page are not.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { launch, openFixture, onPart, clickPart, cardState, waitCard, sleep, collectGarbage, TEST_TIMEOUT, waitArmed, confirmCard } from "./harness.mjs";

let env;
before(async () => { env = await launch(); });
after(async () => { await env?.close(); });

/**
 * A page with an instance `window.ck`, records in `window.records`, events in `window.events`,
 * and `window.runs[name]` counting each action's runs. `hard(name, extra)` defines a hard
 * action; `call(name, args)` invokes it and keeps the promise in `window.outcomes[callId]`.
 */
async function page(options = {}, { openShadowRoots = false } = {}) {
  const p = await openFixture(env, undefined, openShadowRoots);
  await p.evaluate((options) => {
    const { Coworkkit } = window.coworkkit;
    window.records = [];
    window.events = [];
    window.runs = {};
    window.outcomes = {};
    window.ck = new Coworkkit({
      armDelayMs: 300,
      onActionRecord: (r) => window.records.push(r),
      ...options,
      approver: options.role ? () => ({ id: "u1", role: options.role }) : undefined,
    });
    for (const kind of ["proposal", "resolved", "record"]) {
      window.ck.on(kind, (payload) => window.events.push({ kind, payload }));
    }
    window.hard = (name, extra = {}) =>
      window.ck.defineAction({
        name,
        description: `The ${name} action.`,
        control: "hard",
        run: (args) => { window.runs[name] = (window.runs[name] ?? 0) + 1; return { done: name, args }; },
        ...extra,
      });
    window.call = (name, args = {}, callId = undefined) => {
      const promise = window.ck.invoke({ name, args, callId });
      const key = callId ?? `${name}#${Object.keys(window.outcomes).length}`;
      window.outcomes[key] = null;
      promise.then((o) => { window.outcomes[key] = o; });
      return key;
    };
  }, options);
  return p;
}

const outcome = (p, key) => p.evaluate((key) => window.outcomes[key], key);
async function waitOutcome(p, key, timeout = 5000) {
  const until = Date.now() + timeout;
  while (Date.now() < until) {
    const o = await outcome(p, key);
    if (o) return o;
    await sleep(20);
  }
  throw new Error(`no outcome for ${key}`);
}
const runs = (p, name) => p.evaluate((name) => window.runs[name] ?? 0, name);

test("the package loads, and a trusted click on Confirm is seen by the Rust card and runs the action", { timeout: TEST_TIMEOUT }, async () => {
  const p = await page();
  await p.evaluate(() => window.hard("deleteProject", {
    confirmationSummary: (a) => `Delete ${a.projectId}?`,
    input: { type: "object", properties: { projectId: { type: "string" } }, required: ["projectId"] },
  }));
  const key = await p.evaluate(() => window.call("deleteProject", { projectId: "p1" }, "call_7"));
  const state = await waitCard(p, (s) => s.open);
  assert.equal(state.title, "Delete project");
  assert.equal(state.summary, "Delete p1?");
  assert.equal(state.focused, "cancel", "initial focus is on Cancel");
  await confirmCard(p);
  const o = await waitOutcome(p, key);
  assert.equal(o.gate, "confirmed");
  assert.equal(o.ok, true);
  assert.equal(o.callId, "call_7");
  assert.deepEqual(o.result, { done: "deleteProject", args: { projectId: "p1" } });
  assert.equal(await runs(p, "deleteProject"), 1);
  await waitCard(p, (s) => !s.open);
  const records = await p.evaluate(() => window.records);
  assert.equal(records.length, 1);
  assert.equal(records[0].gate, "confirmed");
  assert.equal(records[0].controlSource, "declared");
  assert.deepEqual(records[0].outcome, { status: "ok", value: { done: "deleteProject", args: { projectId: "p1" } } });
  assert.deepEqual(p.problems, []);
});

test("element.click(), dispatchEvent and synthetic keys on Confirm do nothing", { timeout: TEST_TIMEOUT }, async () => {
  const p = await page();
  await p.evaluate(() => window.hard("wipeDisk"));
  const key = await p.evaluate(() => window.call("wipeDisk"));
  await waitCard(p, (s) => s.open);
  await waitArmed(p);
  await onPart(p, "confirm", function () { this.click(); });
  await onPart(p, "confirm", function () {
    this.dispatchEvent(new MouseEvent("click", { bubbles: true, composed: true }));
    this.dispatchEvent(new PointerEvent("pointerdown", { bubbles: true }));
    this.dispatchEvent(new PointerEvent("pointerup", { bubbles: true }));
    this.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true }));
    this.dispatchEvent(new KeyboardEvent("keyup", { key: " ", bubbles: true }));
    this.focus();
    this.dispatchEvent(new KeyboardEvent("keydown", { key: " ", code: "Space", bubbles: true }));
  });
  await onPart(p, "card", function () { this.dispatchEvent(new SubmitEvent("submit")); });
  await sleep(200);
  assert.equal(await runs(p, "wipeDisk"), 0);
  assert.equal(await outcome(p, key), null, "still pending");
  assert.equal((await cardState(p)).open, true);
  assert.deepEqual(p.problems, []);
});

test("a trusted click inside the arm delay does nothing; one after it confirms", { timeout: TEST_TIMEOUT }, async () => {
  const p = await page({ armDelayMs: 1500 });
  await p.evaluate(() => window.hard("dropTable"));
  const key = await p.evaluate(() => window.call("dropTable"));
  await waitCard(p, (s) => s.open);
  await clickPart(p, "confirm");
  await sleep(100);
  assert.equal(await runs(p, "dropTable"), 0);
  assert.equal(await outcome(p, key), null);
  await confirmCard(p);
  assert.equal((await waitOutcome(p, key)).gate, "confirmed");
  assert.equal(await runs(p, "dropTable"), 1);
});

test("Cancel, Escape and Enter on the initially focused button each cancel", { timeout: TEST_TIMEOUT }, async () => {
  const p = await page();
  await p.evaluate(() => window.hard("eraseAll"));
  const ways = {
    click: () => clickPart(p, "cancel"),
    escape: () => p.keyboard.press("Escape"),
    enter: () => p.keyboard.press("Enter"),
  };
  for (const [way, act] of Object.entries(ways)) {
    const key = await p.evaluate(() => window.call("eraseAll"));
    await waitCard(p, (s) => s.open && s.focused === "cancel");
    await waitArmed(p);
    await act();
    const o = await waitOutcome(p, key);
    assert.equal(o.gate, "cancelled", way);
    assert.equal(o.ok, false, way);
    await waitCard(p, (s) => !s.open);
  }
  assert.equal(await runs(p, "eraseAll"), 0);
  const reasons = await p.evaluate(() => window.records.map((r) => [r.gate, r.reason]));
  assert.deepEqual(reasons, [["cancelled", "cancelled_by_user"], ["cancelled", "cancelled_by_user"], ["cancelled", "cancelled_by_user"]]);
});

test("Tab and Shift+Tab stay inside the card (the reason field, Cancel, Confirm); Space on Confirm confirms once focus was brought there in the armed card", { timeout: TEST_TIMEOUT }, async () => {
  // A long delay, so that every Tab below lands while the card is not armed yet, however slow
  // the machine.
  const p = await page({ armDelayMs: 3000 });
  await p.evaluate(() => window.hard("resetPassword"));
  const key = await p.evaluate(() => window.call("resetPassword"));
  await waitCard(p, (s) => s.open && s.focused === "cancel");
  const seen = [];
  for (let i = 0; i < 4; i++) {
    await p.keyboard.press("Tab");
    seen.push((await cardState(p)).focused);
  }
  for (let i = 0; i < 3; i++) {
    await p.keyboard.press("Shift+Tab");
    seen.push((await cardState(p)).focused);
  }
  assert.deepEqual(seen, ["confirm", "reason", "cancel", "confirm", "cancel", "reason", "confirm"]);
  // Focus reached Confirm while the card was not armed yet: a key there does nothing, and
  // starts the delay again (SPEC §4.2: focus must be brought to Confirm in the armed card).
  await waitArmed(p);
  await p.keyboard.press("Space");
  await sleep(200);
  assert.equal(await outcome(p, key), null, "Space on a Confirm focused before arming");
  // Brought there again once armed, it confirms.
  await waitArmed(p);
  await p.keyboard.press("Shift+Tab");
  await p.keyboard.press("Tab");
  assert.equal((await cardState(p)).focused, "confirm");
  await p.keyboard.press("Space");
  assert.equal((await waitOutcome(p, key)).gate, "confirmed");
  assert.equal(await runs(p, "resetPassword"), 1);
});

test("a double click on Confirm runs the action once", { timeout: TEST_TIMEOUT }, async () => {
  const p = await page();
  await p.evaluate(() => window.hard("purgeCache"));
  const key = await p.evaluate(() => window.call("purgeCache"));
  await waitCard(p, (s) => s.open);
  await waitArmed(p);
  const { x, y } = await (await import("./harness.mjs")).partCenter(p, "confirm");
  await p.mouse.dblclick(x, y);
  await p.mouse.click(x, y);
  assert.equal((await waitOutcome(p, key)).gate, "confirmed");
  await sleep(200);
  assert.equal(await runs(p, "purgeCache"), 1);
  assert.equal((await p.evaluate(() => window.records)).length, 1);
});

test("expiry settles as timeout and removes the card", { timeout: TEST_TIMEOUT }, async () => {
  const p = await page({ confirmTimeoutMs: 1200 });
  await p.evaluate(() => window.hard("revokeKeys"));
  const key = await p.evaluate(() => window.call("revokeKeys"));
  const shown = await waitCard(p, (s) => s.open);
  assert.match(shown.countdown, /^Expires in 0:0[012]$/);
  const o = await waitOutcome(p, key, 4000);
  assert.equal(o.gate, "timeout");
  assert.equal(o.ok, false);
  await waitCard(p, (s) => !s.open);
  const [record] = await p.evaluate(() => window.records);
  assert.equal(record.gate, "timeout");
  assert.equal(record.outcome.status, "not_run");
  assert.equal(await runs(p, "revokeKeys"), 0);
});

test("two proposals queue: the card shows 1 of 2, and the second follows the first", { timeout: TEST_TIMEOUT }, async () => {
  const p = await page();
  await p.evaluate(() => { window.hard("deleteA"); window.hard("deleteB"); });
  const a = await p.evaluate(() => window.call("deleteA"));
  const b = await p.evaluate(() => window.call("deleteB"));
  let s = await waitCard(p, (s) => s.open && s.position === "1 of 2");
  assert.equal(s.title, "Delete a");
  const pending = await p.evaluate(() => window.ck.pending().map((x) => x.action));
  assert.deepEqual(pending, ["deleteA", "deleteB"]);
  await clickPart(p, "cancel");
  assert.equal((await waitOutcome(p, a)).gate, "cancelled");
  s = await waitCard(p, (s) => s.open && s.title === "Delete b");
  assert.ok(!s.position, "no position when only one waits");
  await confirmCard(p);
  assert.equal((await waitOutcome(p, b)).gate, "confirmed");
  assert.deepEqual(await p.evaluate(() => window.ck.pending()), []);
});

test("mutating the caller's args after invoke changes nothing", { timeout: TEST_TIMEOUT }, async () => {
  const p = await page();
  await p.evaluate(() => window.hard("deleteItems", {
    confirmationSummary: (a) => `Delete ${a.ids.join(", ")}?`,
  }));
  const key = await p.evaluate(() => {
    const args = { ids: ["a", "b"], meta: { by: "agent" } };
    const key = window.call("deleteItems", args);
    args.ids.push("EVERYTHING");
    args.meta.by = "mallory";
    args.extra = true;
    return key;
  });
  const s = await waitCard(p, (s) => s.open);
  assert.equal(s.summary, "Delete a, b?");
  await confirmCard(p);
  const o = await waitOutcome(p, key);
  assert.deepEqual(o.result.args, { ids: ["a", "b"], meta: { by: "agent" } });
  const frozen = await p.evaluate((key) => Object.isFrozen(window.outcomes[key].result.args.ids), key);
  assert.equal(frozen, true, "run saw a frozen snapshot");
  const [record] = await p.evaluate(() => window.records);
  assert.deepEqual(record.args, { ids: ["a", "b"], meta: { by: "agent" } });
});

test("a member cannot confirm an admin-only card; it stays pending", { timeout: TEST_TIMEOUT }, async () => {
  const p = await page({ role: "member" });
  await p.evaluate(() => window.hard("deleteOrg", { approvers: ["admin"] }));
  const key = await p.evaluate(() => window.call("deleteOrg"));
  const s = await waitCard(p, (s) => s.open);
  assert.equal(s.confirmDisabled, true);
  const notice = await onPart(p, "notice", function () { return this.textContent; });
  assert.match(notice, /admin/);
  await sleep(400);
  await clickPart(p, "confirm");
  await sleep(200);
  assert.equal(await runs(p, "deleteOrg"), 0);
  assert.equal(await outcome(p, key), null);
  assert.equal(await p.evaluate(() => window.ck.pending().length), 1);
});

test("summary markup is shown as text and runs no script", { timeout: TEST_TIMEOUT }, async () => {
  const p = await page();
  await p.evaluate(() => {
    window.pwned = 0;
    window.hard("removeUser", {
      confirmationSummary: (a) => `<img src=x onerror="window.pwned++"><script>window.pwned++</script><b>${a.who}</b>`,
    });
  });
  await p.evaluate(() => window.call("removeUser", { who: "<svg onload=window.pwned++>" }));
  const s = await waitCard(p, (s) => s.open);
  assert.equal(s.summary, `<img src=x onerror="window.pwned++"><script>window.pwned++</script><b><svg onload=window.pwned++></b>`);
  const children = await onPart(p, "summary", function () { return this.children.length; });
  assert.equal(children, 0);
  await sleep(200);
  assert.equal(await p.evaluate(() => window.pwned), 0);
});

test("a throwing or non-string summary falls back to the description", { timeout: TEST_TIMEOUT }, async () => {
  const p = await page();
  await p.evaluate(() => {
    window.hard("truncateLogs", { confirmationSummary: () => { throw new Error("boom"); } });
    window.hard("killJob", { confirmationSummary: () => 42 });
  });
  const a = await p.evaluate(() => window.call("truncateLogs"));
  let s = await waitCard(p, (s) => s.open);
  assert.equal(s.summary, "The truncateLogs action.");
  await clickPart(p, "cancel");
  await waitOutcome(p, a);
  await p.evaluate(() => window.call("killJob"));
  s = await waitCard(p, (s) => s.open && s.title === "Kill job");
  assert.equal(s.summary, "The killJob action.");
});

test("the summary text appears in no record, outcome or event", { timeout: TEST_TIMEOUT }, async () => {
  const p = await page();
  const SECRET = "SUMMARY-SECRET-7f3a";
  await p.evaluate((SECRET) => window.hard("destroyVault", { confirmationSummary: () => `${SECRET}: destroy the vault?` }), SECRET);
  const k1 = await p.evaluate(() => window.call("destroyVault", { v: 1 }));
  await waitCard(p, (s) => s.open && s.summary.includes(SECRET));
  await confirmCard(p);
  await waitOutcome(p, k1);
  const k2 = await p.evaluate(() => window.call("destroyVault", { v: 2 }));
  await waitCard(p, (s) => s.open);
  await clickPart(p, "cancel");
  await waitOutcome(p, k2);
  const everything = await p.evaluate(() => JSON.stringify({
    records: window.records, events: window.events, outcomes: window.outcomes, pending: window.ck.pending(),
  }));
  assert.ok(everything.includes("destroyVault"), "the data was captured");
  assert.ok(!everything.includes(SECRET), "the summary leaked");
});

test("dispose cancels what is pending, removes the card and aborts ctx.signal", { timeout: TEST_TIMEOUT }, async () => {
  const p = await page();
  await p.evaluate(() => {
    window.hard("deleteOne");
    window.hard("deleteTwo");
    window.aborted = false;
    window.ck.defineAction({
      name: "slowJob", description: "Slow.", control: "open",
      run: (_a, ctx) => new Promise((resolve) => ctx.signal.addEventListener("abort", () => { window.aborted = true; resolve("stopped"); })),
    });
  });
  const a = await p.evaluate(() => window.call("deleteOne"));
  const b = await p.evaluate(() => window.call("deleteTwo"));
  const c = await p.evaluate(() => window.call("slowJob"));
  await waitCard(p, (s) => s.open);
  await p.evaluate(() => window.ck.dispose());
  for (const key of [a, b]) {
    const o = await waitOutcome(p, key);
    assert.equal(o.gate, "cancelled");
  }
  assert.equal((await waitOutcome(p, c)).result, "stopped");
  assert.equal(await p.evaluate(() => window.aborted), true);
  assert.equal((await cardState(p)).present, false, "the SDK's DOM is gone");
  const reasons = await p.evaluate(() => window.records.filter((r) => r.gate === "cancelled").map((r) => r.reason));
  assert.deepEqual(reasons, ["disposed", "disposed"]);
  const late = await p.evaluate(() => window.ck.invoke({ name: "deleteOne" }));
  assert.equal(late.gate, "cancelled");
  assert.equal(await runs(p, "deleteOne") + await runs(p, "deleteTwo"), 0);
});

test("an instance the page no longer holds keeps its card and its call until they settle", { timeout: TEST_TIMEOUT }, async () => {
  // JavaScriptCore collects `ck` in `const ck = new Coworkkit(); await ck.invoke(...)` when no
  // later code uses it (the README's example): the card must not vanish with the object.
  const p = await page();
  await p.evaluate(() => {
    window.ck.dispose();
    window.ck = null;
    window.late = null;
    (() => {
      const ck = new window.coworkkit.Coworkkit({ armDelayMs: 100, onActionRecord: (r) => window.records.push(r) });
      ck.defineAction({ name: "deleteOrphan", description: "d", control: "hard", run: () => "ran" });
      ck.invoke({ name: "deleteOrphan", args: {} }).then((o) => { window.late = o; });
    })();
  });
  await waitCard(p, (s) => s.open);
  await collectGarbage(p);
  await sleep(150);
  assert.equal((await cardState(p)).open, true, "the card is still there");
  await confirmCard(p);
  await waitCard(p, (s) => !s.open);
  const late = await p.evaluate(async () => {
    for (let i = 0; i < 100 && !window.late; i++) await new Promise((r) => setTimeout(r, 20));
    return window.late;
  });
  assert.deepEqual([late?.gate, late?.result], ["confirmed", "ran"]);
  assert.deepEqual((await p.evaluate(() => window.records)).map((r) => r.gate), ["confirmed"]);
  assert.deepEqual(p.problems, []);
});

test("a throwing onActionRecord breaks nothing", { timeout: TEST_TIMEOUT }, async () => {
  const p = await page();
  await p.evaluate(() => {
    window.ck.dispose();
    window.ck = new window.coworkkit.Coworkkit({ onActionRecord: () => { throw new Error("sink down"); } });
    window.ck.defineAction({ name: "listTasks", description: "List.", run: () => [1, 2] });
  });
  const o = await p.evaluate(() => window.ck.invoke({ name: "listTasks" }));
  assert.equal(o.gate, "fired");
  assert.deepEqual(o.result, [1, 2]);
  const again = await p.evaluate(() => window.ck.invoke({ name: "listTasks" }));
  assert.equal(again.ok, true);
  assert.ok(p.problems.some((m) => m.includes("onActionRecord")), "the throw was logged");
});

test("axe-core finds no accessibility violations on the open card", { timeout: TEST_TIMEOUT }, async () => {
  // axe cannot see into a closed shadow root, so this page alone attaches shadow roots open
  // (an init script patches attachShadow before the SDK loads); the markup is the same.
  const p = await page({}, { openShadowRoots: true });
  const require = createRequire(import.meta.url);
  await p.addScript({ content: readFileSync(require.resolve("axe-core/axe.min.js"), "utf8") });
  await p.evaluate(() => window.hard("deleteProject", { confirmationSummary: () => "Delete Website redesign and all its 12 tasks?" }));
  await p.evaluate(() => window.call("deleteProject"));
  await waitCard(p, (s) => s.open);
  await sleep(400);
  const result = await p.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ["violations", "passes"] });
    return {
      violations: r.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`),
      checkedCard: r.passes.some((v) => v.nodes.some((n) => JSON.stringify(n.target).includes("coworkkit-card"))),
    };
  });
  assert.deepEqual(result.violations, []);
  assert.ok(result.checkedCard, "axe looked inside the card");
});
